package main

import (
	"encoding/json"
	"fmt"
	"runtime"

	"github.com/benchseal/benchseal/internal/fingerprint"
	"github.com/spf13/cobra"
)

func init() { register(newVersionCmd) }

func newVersionCmd(e *env) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "version",
		Short: "print the benchseal version",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			v := struct {
				Version   string `json:"version"`
				GoVersion string `json:"go_version"`
				Platform  string `json:"platform"`
			}{fingerprint.Version(), fingerprint.GoVersion(), runtime.GOOS + "/" + runtime.GOARCH}
			if asJSON {
				enc := json.NewEncoder(e.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(v)
			}
			_, err := fmt.Fprintf(e.stdout, "benchseal %s (%s, %s)\n", v.Version, v.GoVersion, v.Platform)
			return err
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	return cmd
}
