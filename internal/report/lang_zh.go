package report

var zh = map[string]string{}
