// Package keyring keeps the data key that encrypts a kiosk's data
// directory at rest (issue #34): it creates it, stores it wrapped in
// DATA/keyring, unlocks it, re-wraps it under new credentials, rotates it,
// and seals backup streams with it. It depends on the standard library and
// golang.org/x/crypto (Argon2id and XChaCha20-Poly1305, which the standard
// library lacks) only, plus the repository's internal/fsync for durable
// renames.
//
// # Threat
//
// The data directory (the Badger store and the journal) is encrypted under
// a 32-byte random data key that is never on disk in clear. This protects
// the players' and the operator's records on a kiosk's disk that leaves the
// operator's hands: a stolen kiosk or disk, a disk sent for repair or
// scrapped, a copy of the directory or of a backup. Whoever holds the disk
// without a credential learns nothing of the data, and an altered keyring
// file or backup stream is refused rather than silently read.
//
// It does not protect a running kiosk (the keys are in its memory; Go
// cannot reliably wipe memory), nor against whoever knows a credential,
// nor against an attacker who can write the directory: such a one can
// delete or roll back files (an old copy of the keyring, an old backup),
// which makes the kiosk refuse to start or restore old data, but cannot
// make it accept keys of the attacker's choice. A demo keyring
// (CreateDemo) protects nothing, by design.
//
// # Keys
//
// The data key has generations, numbered from 1; a rotation adds
// generation n+1 beside n (BeginRotation) and, once the data is
// re-encrypted, drops n (FinishRotation). Callers never see a
// generation's bytes, only purpose keys derived from it with HKDF-SHA256
// (RFC 5869), empty salt, 32 bytes, and these info strings (ASCII, no
// terminator):
//
//	Key.Badger   "starfortune/keyring/v1/badger"   Badger's AES-256 master key
//	Key.Journal  "starfortune/keyring/v1/journal"  the journal's sealed lines
//	Key.Backup   "starfortune/keyring/v1/backup"   sealed backup streams
//
// The generations' keys are sealed under a random 32-byte wrapping key W,
// and each slot seals W under its key-encryption key (KEK):
//
//	passphrase  KEK = Argon2id(passphrase, salt, time, memory, threads), 32 bytes,
//	            with a 16-byte random salt and the params stored in the slot
//	central     KEK = 32 bytes the caller gives (a fleet kiosk's central)
//	demo        KEK = 32 bytes in clear in DATA/DEMO-KEY-NOT-SECRET
//
// W lets a slot be added, changed or removed, and a rotation be finished,
// with only an unlocked Keys: no other slot's credential is needed. Each
// BeginRotation makes a new W and re-seals every slot under it, so it needs
// every slot's credential; whoever kept an old copy of the file and one of
// its credentials (a passphrase since changed, a central key since
// replaced) learns nothing of the new generation. Changing a passphrase
// without rotating does not protect against that copy: the old passphrase
// still opens it, and it holds the current data key.
//
// The default Argon2id cost (DefaultPassphraseCost: 3 passes, 64 MiB, 2
// lanes) is about 0.2 s of CPU per unlock on the development machine (a VM
// of 2 AMD EPYC cores shared with other users;
// BenchmarkUnlockPassphraseDefault): about 0.1 s with both cores free, and
// 0.35 to 0.7 s measured while the machine was busy. It allocates 64 MiB
// for the time of the unlock (the process peaked at 135 MB resident). An
// attacker pays as much per guess on similar hardware. A new passphrase must have at
// least MinPassphraseLength (8) characters; it is used byte for byte, with
// no Unicode normalization, so the caller must give the same bytes each
// time.
//
// # Demo keyrings
//
// A demo keyring has only a demo slot, and Ring.Demo reports it so the
// caller refuses real-money play. It is never converted into a real one
// (ErrDemo): its data key has been in clear beside the data, so every copy
// and backup of the directory made so far is readable, and a rotation
// would not change that for those copies; nor should demo play's records
// mix with real money's. Real money starts in a new data directory.
//
// # The keyring file, version 1
//
// Integers are unsigned and big-endian. n is the number of generations (1,
// or 2 during a rotation), m the number of slots (1 to 3, one per kind; a
// demo slot is alone).
//
//	offset      size     field
//	0           22       magic line "STARFORTUNE-KEYRING 1\n"; the 1 is the format version
//	22          16       ring id, random at creation
//	38          4        epoch: 1 at creation, +1 at each BeginRotation (each new W)
//	                     — bytes 0 to 41 are H, bound into every seal below —
//	42          1        n
//	43          4n       the generation numbers, consecutive and ascending; the last is current
//	43+4n       24       payload nonce, random
//	67+4n       36n+16   payload: XChaCha20-Poly1305 under W, nonce above, associated data
//	                     bytes 0 to 42+4n (H, n, the generation numbers); plaintext, for each
//	                     generation in order, its number (4 bytes) and its key (32 bytes)
//	83+40n      1        m
//	84+40n      106m     the slots, 106 bytes each:
//	              +0   1   kind: 1 passphrase, 2 central, 3 demo
//	              +1   8   when the slot was sealed, Unix seconds (signed)
//	              +9   4   Argon2id time (passes)      } passphrase slot only;
//	              +13  4   Argon2id memory, in KiB     } zeros in the other kinds
//	              +17  1   Argon2id threads (lanes)    }
//	              +18  16  Argon2id salt               }
//	              +34  24  nonce, random
//	              +58  48  W sealed with XChaCha20-Poly1305 under the slot's KEK, nonce above,
//	                       associated data H followed by the slot's bytes +0 to +33
//	end-32      32       SHA-256 of every byte before it
//
// A file of one generation and one slot has 262 bytes. The checksum
// catches accidental damage, so that a corrupted file is reported as
// damaged (ErrDamaged) and not as a wrong passphrase; it is not a defence
// against tampering, which the seals are. A slot's associated data binds
// its kind, parameters, date and salt, the format version, the ring and
// the epoch: a slot relabelled as another kind, spliced into another ring,
// or kept from before a rotation does not open. The payload's associated
// data binds the generation list. Load checks the layout, the checksum and Argon2 params
// within bounds (time 1 to 64, memory 8×threads KiB to 1 GiB, threads at
// least 1), so that a tampered file cannot make an unlock exhaust the
// kiosk.
//
// Every write goes to a temporary file beside the keyring
// (".keyring.tmp-*"), which is synced, renamed over DATA/keyring, and the
// directory synced: after a crash the file is either the old one or the
// new one, and both open. A leftover temporary file is ignored, and
// removed by the next write. Creation links the temporary file to the
// keyring's name instead of renaming it, so an existing keyring is never
// replaced.
//
// # The demo key file
//
// DATA/DEMO-KEY-NOT-SECRET holds lines starting with "#", comments (the
// first says the file is the demo's key and gives no secrecy), and one line
// of 64 hexadecimal digits (written lowercase): the demo slot's KEK.
//
// # Sealed streams, version 1
//
// NewSealWriter and NewSealReader seal a backup with a generation's
// Key.Backup, in the STREAM construction (Hoang, Reyhanitabar, Rogaway and
// Vizár, 2015) over XChaCha20-Poly1305.
//
//	offset  size  field
//	0       21    magic line "STARFORTUNE-SEALED 1\n"
//	21      4     generation of the key (uint32)
//	25      15    nonce prefix, random
//	40      16    key check: HKDF-SHA256(secret = the backup key, salt = bytes 0 to 39,
//	              info = "starfortune/sealed/v1/key-check"), first 16 bytes
//	56      …     chunks
//
// The 56 header bytes are the associated data of every chunk. Chunk i
// (from 0) is the XChaCha20-Poly1305 seal of 65536 plaintext bytes, or of
// 0 to 65536 for the last chunk, under the nonce: the prefix, i as a uint64,
// then one byte, 1 for the last chunk and 0 for the others. Every chunk but
// the last is 65552 bytes; the last one ends the stream, and an empty
// stream is one empty last chunk (16 bytes). A chunk out of place fails its
// counter, a stream cut at a chunk's end lacks its last-chunk flag, and
// bytes after the last chunk make it fail: each is ErrDamaged, and a reader
// returns a chunk's bytes only after it authenticated. The key check tells
// a wrong key (ErrWrongKey) from damage before any chunk is read.
package keyring
