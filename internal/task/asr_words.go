package task

// asrWords are ASR's words, the report's first: it transcribes clips.
var asrWords = Words{
	Title:       Phrase{"en": "Speech-to-text benchmark", "zh": "语音转写基准测试"},
	Input:       Phrase{"en": "clip", "zh": "音频片段"},
	Inputs:      Phrase{"en": "clips", "zh": "音频片段"},
	Item:        Phrase{"en": "a clip", "zh": "同一音频片段"},
	Fresh:       Phrase{"en": "audio", "zh": "音频"},
	Output:      Phrase{"en": "transcript", "zh": "转写"},
	Done:        Phrase{"en": "transcribed", "zh": "转写"},
	Work:        Phrase{"en": "transcribing new audio", "zh": "转写新音频"},
	Cached:      Phrase{"en": "identical audio", "zh": "相同音频"},
	Noun:        Phrase{"en": "transcription", "zh": "转写"},
	RTFxHeading: Phrase{"en": "Real-time factor", "zh": "实时率（RTFx）"},
	Success:     Phrase{"en": "success is HTTP 200 with non-empty text. ", "zh": "成功的标准是 HTTP 200 且文本非空。"},
}

// Words are ASR's (asrWords).
func (asr) Words() Words { return asrWords }

// ResponseFormats are ResponseFormats: run --response-format is one of them.
func (asr) ResponseFormats() []string { return ResponseFormats }

// Rescores: benchseal score rescores ASR's transcripts.
func (asr) Rescores() bool { return true }
