package cli

import (
	"fmt"
	"os"
	"strconv"

	"github.com/spf13/cobra"
)

// envContext names the environment variable that gives the context when
// a command is told none, as HYPHAE_DATA_DIR gives the data dir.
const envContext = "HYPHAE_CONTEXT"

// addContextFlag gives cmd the one context flag every command shares:
// --context N, -c N.
func addContextFlag(cmd *cobra.Command, id *uint64, help string) {
	cmd.Flags().Uint64VarP(id, "context", "c", 0, help)
}

// contextArgs takes the context from a command's args and flags: the
// positional CONTEXT of the older grammar (job status 1 KEY), kept for
// scripts, when args has one more than the rest positionals the command
// needs; else --context/-c; else $HYPHAE_CONTEXT. It returns the context
// and the args after it.
func contextArgs(cmd *cobra.Command, flag uint64, args []string, rest int) (uint64, []string, error) {
	if len(args) == rest+1 {
		given := cmd.Flags().Changed("context")
		id, err := parseCtx(args[0])
		if err != nil {
			return 0, nil, err
		}
		if given && flag != id {
			return 0, nil, usage("context %d given twice, differently: --context %d", id, flag)
		}
		return id, args[1:], nil
	}
	id, err := contextOrEnv(cmd, flag)
	return id, args, err
}

// contextFromEnv is $HYPHAE_CONTEXT, or a usage error saying how to give
// a context.
func contextFromEnv() (uint64, error) {
	v := os.Getenv(envContext)
	if v == "" {
		return 0, usage("no context: give --context N (-c N) or set %s", envContext)
	}
	id, err := strconv.ParseUint(v, 10, 64)
	if err != nil || id == 0 {
		return 0, usage("%s=%q: want a context id, 1 or more", envContext, v)
	}
	return id, nil
}

// contextOrEnv is --context when given, else $HYPHAE_CONTEXT: for
// commands whose only positionals are not the context.
func contextOrEnv(cmd *cobra.Command, flag uint64) (uint64, error) {
	if cmd.Flags().Changed("context") {
		if flag == 0 {
			return 0, usage("--context 0: context ids start at 1")
		}
		return flag, nil
	}
	return contextFromEnv()
}

// ctxArgs accepts rest positionals, or one more: the context first.
func ctxArgs(rest int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != rest && len(args) != rest+1 {
			return usage("want %s (see %s --help)", cmd.Use, cmd.CommandPath())
		}
		return nil
	}
}

// contextUse is the help text of the context flag of commands that need one.
var contextUse = fmt.Sprintf("context id (default $%s); the older form puts it first: CMD CONTEXT ...", envContext)
