package score

import "strings"

// benchseal's British-to-American spelling table. Whisper's normalizer maps
// words through a list it ships (english.json); benchseal uses this table
// of its own instead, built from the regular patterns (-our/-or, -ise/-ize,
// -yse/-yze, -re/-er, doubled l, ae/oe) and a list of single words, with
// their common inflections. So "whisper-en" is Whisper's rules with
// benchseal's spelling table: scores can differ from Whisper's on British
// words this table lacks.

var spelling = map[string]string{}

func normalizeSpelling(s string) string {
	f := pyFields(s)
	for i, w := range f {
		if a, ok := spelling[w]; ok {
			f[i] = a
		}
	}
	return strings.Join(f, " ")
}

func addSpelling(uk, us string, suffixes ...string) {
	spelling[uk] = us
	for _, s := range suffixes {
		spelling[uk+s] = us + s
	}
}

func init() {
	// -our -> -or, with inflections (stems: colour -> colo).
	for _, stem := range []string{
		"armo", "behavio", "cando", "clamo", "colo", "demeano", "endeavo",
		"favo", "fervo", "flavo", "harbo", "hono", "humo", "labo", "neighbo", "odo",
		"parlo", "rigo", "rumo", "savo", "splendo", "succo", "tumo", "valo",
		"vapo", "vigo",
	} {
		uk, us := stem+"ur", stem+"r"
		addSpelling(uk, us, "s", "ed", "ing", "ful", "fully", "less", "able", "ably", "er", "ers", "ite", "ites", "hood", "hoods", "ly", "al")
	}
	for uk, us := range map[string]string{
		"saviour": "savior", "saviours": "saviors", "glamour": "glamor",
		"mould": "mold", "moulds": "molds", "moulded": "molded", "moulding": "molding", "mouldy": "moldy",
		"smoulder": "smolder", "smouldering": "smoldering", "smouldered": "smoldered",
		"moult": "molt", "moulting": "molting",
		"rancour": "rancor", "ardour": "ardor", "arbour": "arbor",
	} {
		spelling[uk] = us
	}

	// -ise/-isation -> -ize/-ization (stems: organise -> organ).
	for _, stem := range []string{
		"agon", "apolog", "author", "capital", "categor", "central", "character", "civil",
		"colon", "commercial", "computer", "critic", "custom", "dramat", "econom", "emphas",
		"energ", "equal", "familiar", "fertil", "final", "general", "global", "harmon",
		"hospital", "hypnot", "ideal", "idol", "immun", "industrial", "internal", "item",
		"jeopard", "legal", "local", "margin", "material", "maxim", "memor", "mesmer",
		"minim", "mobil", "modern", "monopol", "natural", "neutral", "normal", "optim",
		"organ", "patron", "penal", "personal", "polar", "popular", "prior", "privat",
		"public", "rational", "real", "recogn", "revolution", "sanit", "scrutin", "sensit",
		"social", "special", "stabil", "standard", "steril", "stigmat", "subsid", "summar",
		"symbol", "sympath", "synchron", "tantal", "terror", "theor", "trivial", "union",
		"util", "vandal", "vapor", "visual", "western", "fantas", "galvan", "glamor",
		"human", "initial", "liberal", "magnet", "motor", "pasteur", "plagiar", "pressur",
		"random", "regular", "satir", "solemn", "urban", "vocal",
		"legitim", "digit", "container", "decentral", "desensit", "destabil",
	} {
		for _, suf := range []string{"", "s", "d", "r", "rs"} {
			spelling[stem+"ise"+suf] = stem + "ize" + suf
		}
		spelling[stem+"ising"] = stem + "izing"
		spelling[stem+"isation"] = stem + "ization"
		spelling[stem+"isations"] = stem + "izations"
		spelling[stem+"isational"] = stem + "izational"
	}
	// -yse -> -yze.
	for _, stem := range []string{"anal", "paral", "catal", "dial", "electrol", "hydrol", "breathal"} {
		for _, suf := range []string{"yse", "yses", "ysed", "ysing", "yser", "ysers"} {
			spelling[stem+suf] = stem + strings.Replace(suf, "ys", "yz", 1)
		}
	}
	delete(spelling, "analyses") // also the plural of analysis, spelled the same in the US

	// -re -> -er.
	for _, stem := range []string{
		"cent", "theat", "met", "lit", "fib", "calib", "somb", "spect", "lust", "meag",
		"centimet", "kilomet", "millimet", "decimet", "kilolit", "millilit",
		"amphitheat", "epicent", "goit", "manoeuv", "mit", "nit", "reconnoit",
		"saltpet", "sepulch",
	} {
		switch stem {
		case "ochr":
			continue
		case "manoeuv":
			for uk, us := range map[string]string{"manoeuvre": "maneuver", "manoeuvres": "maneuvers", "manoeuvred": "maneuvered", "manoeuvring": "maneuvering", "manoeuvrable": "maneuverable"} {
				spelling[uk] = us
			}
			continue
		}
		spelling[stem+"re"] = stem + "er"
		spelling[stem+"res"] = stem + "ers"
		spelling[stem+"red"] = stem + "ered"
	}
	spelling["centring"] = "centering"
	spelling["theatregoer"] = "theatergoer"
	spelling["theatregoers"] = "theatergoers"

	// Doubled l before a suffix.
	for _, stem := range []string{
		"travel", "cancel", "label", "model", "fuel", "quarrel", "signal", "level", "channel",
		"total", "tunnel", "marvel", "dial", "duel", "equal", "funnel", "gravel", "grovel",
		"jewel", "libel", "panel", "pencil", "refuel", "rival", "shovel", "snivel", "spiral",
		"swivel", "towel", "yodel", "counsel", "bevel", "cudgel", "enamel", "initial",
		"revel", "tassel", "unravel", "worship", "kidnap", "program",
	} {
		switch stem {
		case "worship", "kidnap", "program":
			b := stem + stem[len(stem)-1:]
			for _, suf := range []string{"ed", "ing", "er", "ers"} {
				spelling[b+suf] = stem + suf
			}
			continue
		}
		for _, suf := range []string{"ed", "ing", "er", "ers"} {
			spelling[stem+"l"+suf] = stem + suf
		}
	}
	delete(spelling, "programmed")  // US spells these with mm too
	delete(spelling, "programming") // US spells these with mm too
	delete(spelling, "programmer")
	delete(spelling, "programmers")
	for uk, us := range map[string]string{
		"counsellor": "counselor", "counsellors": "counselors", "councillor": "councilor",
		"jewellery": "jewelry", "marvellous": "marvelous", "marvellously": "marvelously",
		"woollen": "woolen", "woolly": "wooly", "traveller": "traveler", "travellers": "travelers",
		"fulfil": "fulfill", "fulfils": "fulfills", "fulfilment": "fulfillment", "enrol": "enroll",
		"enrols": "enrolls", "enrolment": "enrollment", "enrolments": "enrollments", "instal": "install",
		"instalment": "installment", "instalments": "installments", "distil": "distill", "distils": "distills",
		"instil": "instill", "instils": "instills", "skilful": "skillful", "skilfully": "skillfully",
		"wilful": "willful", "wilfully": "willfully", "appal": "appall", "appals": "appalls",
		"enthral": "enthrall", "enthrals": "enthralls",
	} {
		spelling[uk] = us
	}

	// ae/oe and -ence/-ense and single words.
	for uk, us := range map[string]string{
		"anaemia": "anemia", "anaemic": "anemic", "anaesthesia": "anesthesia", "anaesthetic": "anesthetic",
		"anaesthetics": "anesthetics", "anaesthetist": "anesthetist", "caesarean": "cesarean",
		"diarrhoea": "diarrhea", "encyclopaedia": "encyclopedia", "encyclopaedias": "encyclopedias",
		"faeces": "feces", "foetal": "fetal", "foetus": "fetus", "foetuses": "fetuses",
		"gynaecology": "gynecology", "gynaecologist": "gynecologist", "haemoglobin": "hemoglobin",
		"haemophilia": "hemophilia", "haemorrhage": "hemorrhage", "haemorrhoids": "hemorrhoids",
		"leukaemia": "leukemia", "mediaeval": "medieval", "oesophagus": "esophagus",
		"oestrogen": "estrogen", "orthopaedic": "orthopedic", "orthopaedics": "orthopedics",
		"paediatric": "pediatric", "paediatrics": "pediatrics", "paediatrician": "pediatrician",
		"palaeontology": "paleontology", "homoeopathy": "homeopathy", "manoeuvre": "maneuver",
		"defence": "defense", "defences": "defenses", "offence": "offense", "offences": "offenses",
		"licence": "license", "licences": "licenses", "pretence": "pretense", "pretences": "pretenses",
		"grey": "gray", "greys": "grays", "greyer": "grayer", "greyest": "grayest", "greyish": "grayish",
		"greying": "graying", "greyed": "grayed", "tyre": "tire", "tyres": "tires", "aluminium": "aluminum", "programme": "program",
		"programmes": "programs", "cheque": "check", "cheques": "checks", "chequebook": "checkbook",
		"plough": "plow", "ploughs": "plows", "ploughed": "plowed", "ploughing": "plowing",
		"pyjamas": "pajamas", "aeroplane": "airplane", "aeroplanes": "airplanes",
		"sceptic": "skeptic", "sceptics": "skeptics", "sceptical": "skeptical", "scepticism": "skepticism",
		"sulphur": "sulfur", "sulphate": "sulfate", "sulphuric": "sulfuric", "draught": "draft",
		"draughts": "drafts", "draughty": "drafty", "kerb": "curb", "kerbs": "curbs",
		"ageing": "aging", "judgement": "judgment", "judgements": "judgments",
		"acknowledgement": "acknowledgment", "acknowledgements": "acknowledgments",
		"cosy": "cozy", "cosier": "cozier", "cosiest": "coziest", "catalogue": "catalog",
		"catalogues": "catalogs", "catalogued": "cataloged", "analogue": "analog", "analogues": "analogs",
		"dialogue": "dialog", "dialogues": "dialogs", "monologue": "monolog", "prologue": "prolog",
		"epilogue": "epilog", "travelogue": "travelog", "moustache": "mustache", "moustaches": "mustaches",
		"storey": "story", "storeys": "stories", "axe": "ax", "axes": "axes", "doughnut": "donut",
		"doughnuts": "donuts", "gaol": "jail", "gaols": "jails", "practise": "practice", "practised": "practiced", "practises": "practices", "practising": "practicing",
		"artefact": "artifact", "artefacts": "artifacts", "yoghurt": "yogurt",
		"yoghurts": "yogurts", "cosiness": "coziness", "furore": "furor", "mollusc": "mollusk",
		"molluscs": "mollusks", "sombre": "somber", "speciality": "specialty", "specialities": "specialties",
		"tonne": "ton", "tonnes": "tons", "jewelled": "jeweled", "annexe": "annex",
		"annexes": "annexes", "behove": "behoove", "carburettor": "carburetor", "connexion": "connection",
		"kilogramme":  "kilogram",
		"kilogrammes": "kilograms", "liquorice": "licorice", "neighbourhood": "neighborhood", "neighbourhoods": "neighborhoods", "paralyse": "paralyze",
		"pedlar": "peddler", "pedlars": "peddlers", "sabre": "saber", "sanatorium": "sanitarium",
		"tranquillity": "tranquility", "tranquilliser": "tranquilizer", "tranquillisers": "tranquilizers",
		"waggon": "wagon", "waggons": "wagons", "colourful": "colorful",
	} {
		spelling[uk] = us
	}
}
