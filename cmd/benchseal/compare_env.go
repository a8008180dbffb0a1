package main

import (
	"strings"

	"github.com/benchseal/benchseal/internal/report"
	"github.com/benchseal/benchseal/internal/session"
	"github.com/benchseal/benchseal/schemas"
)

// warnEnvironment says, on stderr, where the two bundles' environments
// differ, item by item as replay's environment diff reads them
// (session.Sealed.EnvDiff: engine, version, model, launch command, knobs,
// GPUs, host cores), each pair's B target read under its A name: a lead
// between two setups may be the setup's, not the engine's. Items not
// observed on a side are left out here (the replay's table names them).
func warnEnvironment(e *env, sides [2]report.CompareSide, docs [2]map[string][]byte, pairs []report.ComparedPair) {
	a := &session.Sealed{Run: sides[0].In.Run, Files: docs[0]}
	bDocs := map[string][]byte{schemas.GPUInfoFile: docs[1][schemas.GPUInfoFile], schemas.HostInfoFile: docs[1][schemas.HostInfoFile]}
	bNames := map[string]string{}
	var bTargets []schemas.Target
	for _, p := range pairs {
		for _, t := range sides[1].In.Run.Targets {
			if t.Name != p.B {
				continue
			}
			t.Name = p.A
			bTargets = append(bTargets, t)
			bNames[p.A] = p.B
			if b, ok := docs[1][schemas.ServerPath(p.B, schemas.ProbesBeforeFile)]; ok {
				bDocs[schemas.ServerPath(p.A, schemas.ProbesBeforeFile)] = b
			}
		}
	}
	d := a.EnvDiff(bDocs, bTargets)
	var hw, other []string
	for _, r := range d.Rows {
		if r.State != schemas.DiffDiffers {
			continue
		}
		item := r.Item + " (A " + r.Sealed + ", B " + r.Replay + ")"
		if r.Target != "" {
			item = "A:" + r.Target + "/B:" + bNames[r.Target] + " " + item
		}
		if r.Hardware {
			hw = append(hw, item)
		} else {
			other = append(other, item)
		}
	}
	if len(hw) > 0 {
		warnf(e.stderr, "A and B ran on different hardware: %s: a figure that differs may be the hardware's, not the server's", strings.Join(hw, "; "))
	}
	if len(other) > 0 {
		warnf(e.stderr, "A and B were set up differently: %s: a figure that differs may be the setup's, not the engine's", strings.Join(other, "; "))
	}
}
