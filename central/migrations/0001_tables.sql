-- The central's tables. Only the owner (the role that ran `central init`)
-- reads or writes them; kiosk roles have no right on any table and reach
-- them only through the SECURITY DEFINER functions of 0002.

CREATE EXTENSION IF NOT EXISTS pgcrypto; -- digest() for the salts and leaves handed out with a pack

CREATE TABLE emissions (
	id         int PRIMARY KEY CHECK (id BETWEEN 1 AND 99),
	stake_cents int NOT NULL CHECK (stake_cents IN (50, 100, 200)),
	pack_size  int NOT NULL CHECK (pack_size > 0),
	created_at timestamptz NOT NULL DEFAULT now()
);

-- A block's units (3 bytes each, engine.Unit.Encode) in serving order and its
-- published Merkle root. seed stays NULL until the block closes; the secret
-- copy is in block_seeds.
CREATE TABLE blocks (
	id          bigserial PRIMARY KEY,
	emission    int NOT NULL REFERENCES emissions,
	stake_cents int NOT NULL,
	number      int NOT NULL CHECK (number >= 1),
	size        int NOT NULL CHECK (size > 0),
	root        bytea NOT NULL CHECK (length(root) = 32),
	units       bytea NOT NULL,
	closed_at   timestamptz,
	seed        bytea,
	UNIQUE (emission, stake_cents, number),
	CHECK ((closed_at IS NULL) = (seed IS NULL))
);
-- Uncompressed out-of-line storage: a pack reads its slice without
-- detoasting the whole value.
ALTER TABLE blocks ALTER units SET STORAGE EXTERNAL;

CREATE TABLE block_seeds (
	block_id bigint PRIMARY KEY REFERENCES blocks,
	seed     bytea NOT NULL CHECK (length(seed) = 32)
);

-- The hashes of the perfect subtrees of 2^level leaves, 32 bytes each, left
-- to right (engine.MerkleLevels), from level 4 up: a range proof reads its
-- few nodes here, and hashes those of levels 0-3 from the units (sf_node),
-- which keeps a block's stored tree at 3.4 MB instead of 54 MB.
CREATE TABLE block_levels (
	block_id bigint NOT NULL REFERENCES blocks,
	level    int NOT NULL,
	hashes   bytea NOT NULL,
	PRIMARY KEY (block_id, level)
);
ALTER TABLE block_levels ALTER hashes SET STORAGE EXTERNAL;

-- The bytes of a leaf after its salt, block and position (prize_cents u64,
-- then each drop's kind u8, index u8, value_cents u64: engine/merkle.go), for
-- every unit encoding at every stake: what sf_leaf appends.
CREATE TABLE leaf_tails (
	stake_cents int NOT NULL,
	unit        bytea NOT NULL,
	tail        bytea NOT NULL CHECK (length(tail) = 28),
	PRIMARY KEY (stake_cents, unit)
);

-- The per-block cursor: positions below next have been cut into packs.
-- last_first is the first position of the last pack cut (set by the same
-- UPDATE … RETURNING), packs the number of packs cut, sold and voided the
-- counts that decide closure (recounted by the audit).
CREATE TABLE block_cursors (
	block_id   bigint PRIMARY KEY REFERENCES blocks,
	size       int NOT NULL,
	pack_size  int NOT NULL,
	next       int NOT NULL DEFAULT 0 CHECK (next BETWEEN 0 AND size),
	last_first int,
	packs      int NOT NULL DEFAULT 0,
	sold       int NOT NULL DEFAULT 0,
	voided     int NOT NULL DEFAULT 0
);

CREATE TABLE kiosks (
	id                text PRIMARY KEY,
	role              name NOT NULL UNIQUE,
	created_at        timestamptz NOT NULL DEFAULT now(),
	last_seen         timestamptz,
	last_sale_seq     bigint NOT NULL DEFAULT 0,
	last_movement_seq bigint NOT NULL DEFAULT 0
);

-- status: available (a released remainder, no kiosk), claimed, returned (its
-- kiosk released the remainder: count was cut), voided.
CREATE TABLE packs (
	serial      text PRIMARY KEY,
	block_id    bigint NOT NULL REFERENCES blocks,
	first       int NOT NULL,
	count       int NOT NULL CHECK (count > 0),
	kiosk       text REFERENCES kiosks,
	status      text NOT NULL CHECK (status IN ('available', 'claimed', 'returned', 'voided')),
	claimed_at  timestamptz,
	voided_at   timestamptz,
	void_reason text
);
CREATE INDEX packs_block ON packs (block_id, first);
CREATE INDEX packs_kiosk ON packs (kiosk);
CREATE INDEX packs_available ON packs (block_id) WHERE status = 'available';

-- One row per sold unit. A ticket names its block and position, so the
-- primary key and the (block, position) constraint both say "sold once":
-- a second sale of a position is refused by them and kept in sale_conflicts.
CREATE TABLE sales (
	ticket      text PRIMARY KEY,
	block_id    bigint NOT NULL REFERENCES blocks,
	position    int NOT NULL,
	pack_serial text NOT NULL REFERENCES packs,
	kiosk       text NOT NULL REFERENCES kiosks,
	seq         bigint NOT NULL,
	sold_at     timestamptz NOT NULL,
	player      text NOT NULL,
	stake_cents bigint NOT NULL,
	prize_cents bigint NOT NULL,
	unit        bytea NOT NULL CHECK (length(unit) = 3),
	revealed    boolean NOT NULL,
	received_at timestamptz NOT NULL DEFAULT now(),
	CONSTRAINT sales_position_once UNIQUE (block_id, position),
	CONSTRAINT sales_kiosk_seq_once UNIQUE (kiosk, seq)
);
CREATE INDEX sales_pack ON sales (pack_serial);

-- Pushed sales the central refused: the alarm `central audit` reports.
CREATE TABLE sale_conflicts (
	id          bigserial PRIMARY KEY,
	kiosk       text NOT NULL,
	seq         bigint NOT NULL,
	ticket      text NOT NULL,
	reason      text NOT NULL,
	sale        jsonb NOT NULL,
	received_at timestamptz NOT NULL DEFAULT now(),
	UNIQUE (kiosk, seq, ticket)
);

-- The kiosks' wallet ledgers. kind: grant, credit, payout, sale.
CREATE TABLE movements (
	kiosk        text NOT NULL REFERENCES kiosks,
	id           text NOT NULL,
	seq          bigint NOT NULL,
	player       text NOT NULL,
	kind         text NOT NULL,
	debit_cents  bigint NOT NULL,
	credit_cents bigint NOT NULL,
	ticket       text,
	at           timestamptz NOT NULL,
	received_at  timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (kiosk, id),
	UNIQUE (kiosk, seq)
);

CREATE TABLE movement_conflicts (
	id          bigserial PRIMARY KEY,
	kiosk       text NOT NULL,
	seq         bigint NOT NULL,
	reason      text NOT NULL,
	movement    jsonb NOT NULL,
	received_at timestamptz NOT NULL DEFAULT now(),
	UNIQUE (kiosk, seq, reason)
);

-- Closure is final: once closed, a block's closure time and revealed seed
-- never change and it never reopens.
CREATE FUNCTION blocks_closure_final() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF OLD.closed_at IS NOT NULL AND (NEW.closed_at IS DISTINCT FROM OLD.closed_at OR NEW.seed IS DISTINCT FROM OLD.seed
			OR NEW.root IS DISTINCT FROM OLD.root OR NEW.units IS DISTINCT FROM OLD.units) THEN
		RAISE EXCEPTION 'block % is closed: it never reopens', OLD.id USING ERRCODE = 'SF003';
	END IF;
	RETURN NEW;
END $$;
CREATE TRIGGER blocks_closure_final BEFORE UPDATE ON blocks FOR EACH ROW EXECUTE FUNCTION blocks_closure_final();
