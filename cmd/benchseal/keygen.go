package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/benchseal/benchseal/bundle"
	"github.com/benchseal/benchseal/internal/newfile"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

func init() { register(newKeygenCmd) }

func newKeygenCmd(e *env) *cobra.Command {
	var prefix string
	cmd := &cobra.Command{
		Use:   "keygen [--out PREFIX]",
		Short: "make an ECDSA P-256 signing key pair (PREFIX.key, PREFIX.pub)",
		Long: `keygen makes an ECDSA P-256 key pair for seal --key: PREFIX.key, the private
key encrypted under a password ("ENCRYPTED SIGSTORE PRIVATE KEY", the format of
cosign generate-key-pair; created 0600), and PREFIX.pub, the public key (PKIX PEM)
that readers pass to verify or to cosign. It never overwrites a file.

The password comes from BENCHSEAL_PASSWORD, else COSIGN_PASSWORD, else a prompt
on the terminal. An empty password is allowed (as with cosign): the private key
is then protected by nothing, and keygen warns so.

It prints the key's fingerprint (sha256 of the public key's DER) on stdout.`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if prefix == "" {
				return usageErrorf("--out must not be empty")
			}
			keyPath, pubPath := prefix+".key", prefix+".pub"
			for _, p := range []string{keyPath, pubPath} {
				if _, err := os.Lstat(p); err == nil {
					return withHint(fmt.Errorf("keygen: %s already exists", p), "keygen never overwrites a key; choose another --out or move the old key away")
				}
			}
			pw, err := readPassword(e, true)
			if err != nil {
				return fmt.Errorf("keygen: %w", err)
			}
			priv, pub, err := bundle.GenerateKey(pw)
			if err != nil {
				return fmt.Errorf("keygen: %w", err)
			}
			if err := writeNew(keyPath, priv, 0o600); err != nil {
				return fmt.Errorf("keygen: %w", err)
			}
			if err := writeNew(pubPath, pub, 0o644); err != nil {
				os.Remove(keyPath)
				return fmt.Errorf("keygen: %w", err)
			}
			pubKey, err := bundle.LoadPublicKey(cmd.Context(), pubPath, nil)
			if err != nil {
				return fmt.Errorf("keygen: %w", err)
			}
			fp, _ := bundle.Fingerprint(pubKey)
			if len(pw) == 0 {
				warnf(e.stderr, "the password is empty: %s is encrypted under an empty password, so anyone who can read it can sign as you (set BENCHSEAL_PASSWORD to a passphrase for a protected key)", keyPath)
			}
			infof(e.stderr, "wrote %s (private: keep it secret) and %s (public: publish it)", keyPath, pubPath)
			_, err = fmt.Fprintln(e.stdout, fp)
			return err
		},
	}
	cmd.Flags().StringVarP(&prefix, "out", "o", "benchseal", "write `PREFIX`.key and PREFIX.pub")
	return cmd
}

// writeNew creates name with perm and writes b to it; it fails if name
// exists (O_EXCL), so no key or bundle is ever overwritten.
func writeNew(name string, b []byte, perm os.FileMode) error {
	err := newfile.Write(name, b, perm)
	if errors.Is(err, fs.ErrExist) {
		return withHint(err, "benchseal never overwrites a file; choose another name")
	}
	return err
}

// Environment variables that hold a key's password, in the order tried.
var passwordEnv = []string{"BENCHSEAL_PASSWORD", "COSIGN_PASSWORD"}

// readPassword returns the key password: from the environment (set, even
// to the empty string, counts), else from a prompt on the terminal when
// stdin is one. confirm asks twice (for a new key).
func readPassword(e *env, confirm bool) ([]byte, error) {
	for _, name := range passwordEnv {
		// LookupEnv, not e.getenv: an empty password set on purpose
		// differs from no password at all.
		if v, ok := os.LookupEnv(name); ok {
			return []byte(v), nil
		}
	}
	in, ok := e.stdin.(*os.File)
	if !ok || !term.IsTerminal(int(in.Fd())) {
		return nil, withHint(errors.New("no password: BENCHSEAL_PASSWORD is not set and stdin is not a terminal"),
			"set BENCHSEAL_PASSWORD (or COSIGN_PASSWORD) to the key's password; an empty value means no password")
	}
	tty, err := os.Open("/dev/tty")
	if err != nil {
		return nil, fmt.Errorf("reading the password: %w", err)
	}
	defer tty.Close()
	fmt.Fprint(e.stderr, "Enter password for private key: ")
	pw, err := term.ReadPassword(int(tty.Fd()))
	fmt.Fprintln(e.stderr)
	if err != nil {
		return nil, fmt.Errorf("reading the password: %w", err)
	}
	if confirm {
		fmt.Fprint(e.stderr, "Enter password for private key again: ")
		again, err := term.ReadPassword(int(tty.Fd()))
		fmt.Fprintln(e.stderr)
		if err != nil {
			return nil, fmt.Errorf("reading the password: %w", err)
		}
		if !bytes.Equal(pw, again) {
			return nil, errors.New("the passwords do not match")
		}
	}
	return pw, nil
}
