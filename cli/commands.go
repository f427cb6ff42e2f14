package cli

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"starfortune/storage"
)

// commands is the command line: `starfortune help`, the usage errors and
// the command list of docs/operating.md all come from it.
var commands = []command{
	{name: "play", help: "play units for a player, pucks picked at random", needs: needsGame, json: true, flags: playFlags},
	{name: "history", help: "a player's last units, newest first", needs: needsGame, json: true, flags: historyFlags},
	{name: "show", args: "TICKET", min: 1, max: 1, help: "one unit by its ticket number", needs: needsGame, json: true, flags: showFlags},
	{name: "blocks", help: "the blocks, their commitments, and the seeds of sold-out ones", needs: needsGame, json: true, flags: noFlags(blocksRun)},
	{name: "wallet show", help: "a player's funds", needs: needsGame, json: true, flags: walletFlags("")},
	{name: "wallet credit", help: "credit a player's funds (cash in)", needs: needsGame, json: true, flags: walletFlags("credit")},
	{name: "wallet payout", help: "pay out a player's funds (cash out)", needs: needsGame, json: true, flags: walletFlags("payout")},
	{name: "player open", help: "open a player's account (an attendant, the holder present); prints the card", needs: needsGame, json: true, flags: playerOpenFlags},
	{name: "player complete", help: "make a wallet from before accounts an account: holder, limits, card and PIN", needs: needsGame, json: true, flags: playerCompleteFlags},
	{name: "player show", help: "an account: holder, balance, limits and pending changes, break, held prizes; at a fleet's kiosk, as the central holds it (the card's PIN asked), then what this kiosk holds", needs: needsGame, json: true, flags: playerShowFlags},
	{name: "player list", help: "every account, and the wallets from before accounts", needs: needsGame, json: true, flags: noFlags(playerListRun)},
	{name: "player limits", help: "an account's limits; --set changes one (a decrease at once, an increase after the cooling-off)", needs: needsGame, json: true, flags: playerLimitsFlags},
	{name: "player exclude", help: "record a break (self-exclusion) the player asked for; it cannot be shortened", needs: needsGame, flags: playerExcludeFlags},
	{name: "player unlock-pin", help: "unlock a card after wrong PINs (the holder present)", needs: needsGame, flags: playerUnlockFlags},
	{name: "player identity", help: "record the identity check of a held prize's holder", needs: needsGame, flags: playerIdentityFlags},
	{name: "player handpay", help: "record the payout by hand of a held prize, its identity checked", needs: needsGame, flags: playerHandpayFlags},
	{name: "exclusions import", args: "FILE", min: 1, max: 1, help: "import the exclusion list (CSV: TYPE,NUMBER per line)", needs: needsGame, flags: exclusionsImportFlags},
	{name: "register", help: "the register of large wins: prizes held and set aside, identity checks, hand-pays", needs: needsGame, json: true, flags: registerFlags},
	{name: "audit", help: "verify blocks, history, wallets and journal; exit 1 on any finding", needs: needsGame, json: true, flags: noFlags(auditRun)},
	{name: "report", help: "per block: sold, left, paid and payout against the table", needs: needsGame, json: true, flags: reportFlags},
	{name: "operator set-pin", help: "set the operator PIN, or with --name an attendant's (asked twice, never on the command line)", needs: needsGame, flags: setPINFlags},
	{name: "operator add", args: "NAME", min: 1, max: 1, help: "add an attendant with their own PIN (asked twice): the logs and the register name them", needs: needsGame, flags: noFlags(attendantAddRun)},
	{name: "operator remove", args: "NAME", min: 1, max: 1, help: "take an attendant's PIN away", needs: needsGame, flags: noFlags(attendantRemoveRun)},
	{name: "operator list", help: "the attendants, the first one (the operator PIN's) first", needs: needsGame, json: true, flags: noFlags(attendantListRun)},
	{name: "operator status", help: "the operator PIN: set, meeting the rule or not, and the lockout in force", needs: needsGame, json: true, flags: noFlags(pinStatusRun)},
	{name: "operator unlock", help: "end the operator panel's lockout after wrong PINs (recorded in the operator log)", needs: needsGame, flags: noFlags(unlockRun)},
	{name: "operator log", help: "the operator log, newest first, then the journal head to note (as report and audit print it)", needs: needsGame, json: true, flags: operatorLogFlags},
	{name: "backup", args: "FILE", min: 1, max: 1, help: "write the store and the journal to a new backup file", needs: needsGame, flags: noFlags(backupRun)},
	{name: "restore", args: "FILE", min: 1, max: 1, help: "restore a backup into an empty data directory", needs: needsData, flags: noFlags(restoreRun)},
	{name: "recover", help: "rebuild the store from the journal", needs: needsData, flags: recoverFlags},
	{name: "key init", help: "encrypt a data directory under a passphrase (a new one, or one written in clear)", needs: needsData, flags: keyInitFlags},
	{name: "key passphrase", help: "change the passphrase of the data directory's key", needs: needsData, flags: keyPassphraseFlags},
	{name: "key rotate", help: "replace the data key: the store's key registry and the journal sealed anew, nothing re-drawn", needs: needsData, flags: keyRotateFlags},
	{name: "key status", help: "how the data directory's key is kept (nothing secret)", needs: needsData, flags: noFlags(keyStatus)},
	{name: "sync", help: "a kiosk of a fleet: push its backlog to the central now", needs: needsGame, json: true, flags: syncFlags},
	{name: "verify", args: "FILE", min: 1, max: 1, help: "recompute a closed block's Merkle root from its units (JSON lines, - for stdin)", flags: verifyFlags},
	{name: "version", help: "the release, the commit and the binary's SHA-256", flags: noFlags(versionRun)},

	{name: "central init", help: "create or migrate the central's schema", needs: needsCentral, flags: noFlags(centralInit)},
	{name: "central emission create", help: "draw an emission's blocks, cut in packs", needs: needsCentral, json: true, flags: centralEmissionFlags},
	{name: "central kiosk add", args: "ID", min: 1, max: 1, help: "register a kiosk; prints its connection string and its call key, once", needs: needsCentral, json: true, flags: noFlags(centralKioskAdd)},
	{name: "central pooler", help: "the role every kiosk behind a pooler (PgBouncer) logs in as: creates it or gives it a new password; prints its connection string and the pooler's auth_file line, once", needs: needsCentral, json: true, flags: centralPoolerFlags},
	{name: "central kiosk reanchor", args: "ID", min: 1, max: 1, help: "accept a kiosk's journal as it now is (restored from a backup on purpose)", needs: needsCentral, flags: centralReanchorFlags},
	{name: "central kiosks", help: "the fleet: each kiosk online or not, its backlog and packs; each stake's progress", needs: needsCentral, json: true, flags: noFlags(centralKiosks)},
	{name: "central blocks", help: "the central's blocks, their commitments, and the seeds of closed ones", needs: needsCentral, json: true, flags: noFlags(centralBlocks)},
	{name: "central show", args: "TICKET", min: 1, max: 1, help: "a unit sold by any kiosk", needs: needsCentral, json: true, flags: noFlags(centralShow)},
	{name: "central units", args: "BLOCK", min: 1, max: 1, help: "a closed block's sold units as JSON lines, for verify", needs: needsCentral, flags: noFlags(centralUnits)},
	{name: "central pack void", args: "PACK", min: 1, max: 1, help: "void a lost kiosk's pack", needs: needsCentral, flags: centralVoidFlags},
	{name: "central players open", help: "open a fleet account (an attendant, the holder present); prints it with its card", needs: needsCentral, json: true, flags: centralPlayerOpenFlags},
	{name: "central players show", args: "CARD", min: 1, max: 1, help: "a fleet account: holder, limits with what the fleet used of them, break, open leases, funds at each kiosk", needs: needsCentral, json: true, flags: noFlags(centralPlayerShow)},
	{name: "central players list", help: "every fleet account, with its open leases", needs: needsCentral, json: true, flags: noFlags(centralPlayerList)},
	{name: "central players limits", args: "CARD LIMIT EUROS", min: 3, max: 3, help: "change a fleet account's limit (0 removes an optional one): a decrease at once, an increase after the cooling-off", needs: needsCentral, json: true, flags: centralPlayerLimitsFlags},
	{name: "central players exclude", args: "CARD BREAK", min: 2, max: 2, help: "record a break (24h, 7d, 30d, 3m, 6m, 12m, indefinite) at every kiosk; it cannot be shortened", needs: needsCentral, flags: centralPlayerExcludeFlags},
	{name: "central players unlock-pin", args: "CARD", min: 1, max: 1, help: "unlock a fleet card after wrong PINs (the holder present)", needs: needsCentral, flags: centralPlayerUnlockFlags},
	{name: "central exclusions import", args: "FILE", min: 1, max: 1, help: "import the exclusion list (CSV: TYPE,NUMBER per line); the holders' sessions end at every kiosk", needs: needsCentral, flags: centralExclusionsImportFlags},
	{name: "central register", help: "the fleet's register of large wins: the prizes from --min, with holder and kiosk, and how each prize held was paid by hand", needs: needsCentral, json: true, flags: centralRegisterFlags},
	{name: "central audit", help: "the fleet audit; exit 1 on any finding", needs: needsCentral, json: true, flags: centralAuditFlags},
	{name: "central archive", args: "DIR [BLOCK...]", min: 1, max: 1000, help: "archive closed blocks into DIR (those given, or those closed at least archive_after ago): export, verify, detach their sales", needs: needsCentral, json: true, flags: noFlags(centralArchive)},
	{name: "central report", args: "[BLOCK]", max: 1, help: "per kiosk and day; --closing: closed blocks' closing reports", needs: needsCentral, json: true, flags: centralReportFlags},
}

// windowCommand is the command line without a command: the game's window.
var windowCommand = command{help: "open the game window", needs: needsWindow}

// noFlags is a command that declares no flag of its own.
func noFlags(run func(*call) error) func(*flag.FlagSet) func(*call) error {
	return func(*flag.FlagSet) func(*call) error { return run }
}

// find is the command named name, or nil.
func find(name string) *command {
	for i := range commands {
		if commands[i].name == name {
			return &commands[i]
		}
	}
	return nil
}

// isGroup says whether name is the first words of commands' names
// ("wallet", "central kiosk").
func isGroup(name string) bool {
	for _, c := range commands {
		if strings.HasPrefix(c.name, name+" ") {
			return true
		}
	}
	return false
}

// subcommands words what may follow the group name: "show, credit or payout".
func subcommands(group string) string {
	var next []string
	for _, c := range commands {
		if rest, ok := strings.CutPrefix(c.name, group+" "); ok {
			if w, _, _ := strings.Cut(rest, " "); !slices.Contains(next, w) {
				next = append(next, w)
			}
		}
	}
	if len(next) < 2 {
		return strings.Join(next, "")
	}
	return strings.Join(next[:len(next)-1], ", ") + " or " + next[len(next)-1]
}

// synopsis is cmd as typed, with its own flags and arguments.
func synopsis(cmd *command) string {
	words := []string{"starfortune"}
	if name, ok := strings.CutPrefix(cmd.name, "central "); ok {
		words = append(words, "central --db URL", name)
	} else if cmd.name != "" {
		words = append(words, cmd.name)
	}
	fs := flag.NewFlagSet(cmd.name, flag.ContinueOnError)
	if cmd.flags != nil {
		cmd.flags(fs)
	} else {
		(&windowFlags{}).declare(fs)
	}
	var required, optional []string
	fs.VisitAll(func(f *flag.Flag) {
		if f.Name == "kiosk" {
			return // the old name of --fullscreen
		}
		name, _ := flag.UnquoteUsage(f)
		w := "--" + f.Name
		if name != "" {
			w += " " + name
		}
		if strings.HasPrefix(f.Usage, "required") {
			required = append(required, w)
		} else {
			optional = append(optional, "["+w+"]")
		}
	})
	words = append(append(words, required...), optional...)
	if cmd.json {
		words = append(words, "[--json]")
	}
	if cmd.args != "" {
		words = append(words, cmd.args)
	}
	return strings.Join(words, " ")
}

// printUsage prints every command with its one-line help.
func printUsage(w io.Writer) {
	fmt.Fprintf(w, "Star Fortune — kiosk lottery game.\n\nUsage:\n")
	for _, c := range listed() {
		fmt.Fprintf(w, "  %s\n        %s\n", synopsis(c), c.help)
	}
	fmt.Fprintf(w, `
Every command also takes:
  --data DIR        the data directory (default %s)
  --config FILE     the settings file (TOML; default $XDG_CONFIG_HOME/starfortune/starfortune.toml when it exists)
  --central URL --kiosk-id ID
                    a kiosk of a fleet: units come from the central's packs (or the settings file's [central] url and kiosk_id)
Central commands take the central's connection string as its owner: --db URL (postgres://… or host=/socket/dir port=… dbname=…).
The window speaks French unless --lang, the settings file's language or an English system locale (LC_ALL, LC_MESSAGES, LANG) says "en".
--kiosk is the old name of --fullscreen, and --kiosk ID of --kiosk-id ID (both kept for one release).
starfortune help lists the commands; starfortune COMMAND --help prints one command's flags.
`, storage.DefaultDir())
}

// printCommandHelp prints one command's synopsis and flags.
func printCommandHelp(w io.Writer, cmd *command) {
	fmt.Fprintf(w, "usage: %s\n  %s\n", synopsis(cmd), cmd.help)
	fs := flag.NewFlagSet(cmd.name, flag.ContinueOnError)
	cmd.flags(fs)
	fs.SetOutput(w)
	fs.PrintDefaults()
}

// listed is every command line in the order help lists them: the window,
// then the table.
func listed() []*command {
	out := []*command{&windowCommand}
	for i := range commands {
		out = append(out, &commands[i])
	}
	return out
}
