package task

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
)

// NotWAVError says a file that should be a WAV holds another audio format
// (an MP3 renamed .wav, say): which one, and its usual extension, so the
// CLI can name the command that converts it.
type NotWAVError struct {
	File   string
	Format string // "MP3", "Ogg", "FLAC", ...
	Ext    string // its usual extension, without the dot
}

func (e *NotWAVError) Error() string {
	article := "a"
	if strings.ContainsRune("AEIMO", rune(e.Format[0])) { // an MP3, an Ogg, an AIFF; a FLAC, a WebM
		article = "an"
	}
	return fmt.Sprintf("%s %s file, not a WAV (only its name says %s)", article, e.Format, strings.ToLower(filepath.Ext(e.File)))
}

// sniffAudio names the compressed audio format b starts with, or "" when
// it is none benchseal knows. The magic numbers are those of the formats'
// specifications (ID3v2, MPEG frame sync, ADTS, Ogg, FLAC, ISO BMFF ftyp,
// EBML, AIFF).
func sniffAudio(b []byte) (format, ext string) {
	switch {
	case bytes.HasPrefix(b, []byte("ID3")):
		return "MP3", "mp3"
	case len(b) >= 2 && b[0] == 0xFF && b[1]&0xF6 == 0xF0:
		return "AAC (ADTS)", "aac"
	case len(b) >= 2 && b[0] == 0xFF && b[1]&0xE0 == 0xE0:
		return "MP3", "mp3"
	case bytes.HasPrefix(b, []byte("OggS")):
		return "Ogg", "ogg"
	case bytes.HasPrefix(b, []byte("fLaC")):
		return "FLAC", "flac"
	case len(b) >= 8 && string(b[4:8]) == "ftyp":
		return "MP4/M4A", "m4a"
	case bytes.HasPrefix(b, []byte{0x1A, 0x45, 0xDF, 0xA3}):
		return "WebM/Matroska", "webm"
	case len(b) >= 12 && string(b[:4]) == "FORM" && (string(b[8:12]) == "AIFF" || string(b[8:12]) == "AIFC"):
		return "AIFF", "aiff"
	}
	return "", ""
}
