-- Sales partitioned by block (#32, a national fleet). A block is what the
-- audit checks and what is archived once closed (`central archive`,
-- docs/fleet.md "Archiving closed blocks"): its sales live in a partition
-- of their own, sales_b<block id>, made as the block is inserted, so that
-- an archived block's rows leave the central by detaching one partition,
-- with no DELETE and no bloat, and the audit reads one block's rows at a
-- time. The number of partitions is the blocks not yet archived.
--
-- What changes:
--   - The key is (block_id, position), which the partition key is part
--     of; a ticket is its block's and position's canonical one (push_sales
--     stores the central's own), so the ticket stays unique, indexed.
--   - (kiosk, seq) is indexed, not unique: an index spanning partitions
--     cannot be unique without the partition key. push_sales takes a
--     kiosk's numbers in sequence under that kiosk's row lock, and the
--     audit checks each kiosk's numbers are gap-free and once.
--   - No foreign keys from sales: attaching a partition would clone them,
--     and adding a foreign key locks the referenced tables (packs, kiosks,
--     blocks) against the kiosks' claims and pushes, so that one kiosk's
--     open transaction would hold every emission and the emission every
--     kiosk. push_sales stores only a pack the kiosk holds, of its block,
--     and the audit finds a sale of an unknown block or pack.
--   - Attaching and detaching take SHARE UPDATE EXCLUSIVE on sales, which
--     the kiosks' inserts do not wait for.

ALTER TABLE sales RENAME TO sales_0012;
ALTER TABLE sales_0012 RENAME CONSTRAINT sales_pkey TO sales_0012_pkey;
ALTER TABLE sales_0012 RENAME CONSTRAINT sales_position_once TO sales_0012_position_once;
ALTER TABLE sales_0012 RENAME CONSTRAINT sales_kiosk_seq_once TO sales_0012_kiosk_seq_once;
ALTER INDEX sales_pack RENAME TO sales_0012_pack;
DROP TRIGGER sales_counted ON sales_0012;

CREATE TABLE sales (
	ticket      text NOT NULL,
	block_id    bigint NOT NULL,
	position    int NOT NULL,
	pack_serial text NOT NULL,
	kiosk       text NOT NULL,
	seq         bigint NOT NULL,
	sold_at     timestamptz NOT NULL,
	player      text NOT NULL,
	stake_cents bigint NOT NULL,
	prize_cents bigint NOT NULL,
	unit        bytea NOT NULL CHECK (length(unit) = 3),
	revealed    boolean NOT NULL,
	received_at timestamptz NOT NULL DEFAULT now(),
	CONSTRAINT sales_position_once PRIMARY KEY (block_id, position)
) PARTITION BY LIST (block_id);
CREATE INDEX sales_ticket ON sales (ticket);
CREATE INDEX sales_kiosk_seq ON sales (kiosk, seq);
CREATE INDEX sales_pack ON sales (pack_serial);
REVOKE ALL ON sales FROM PUBLIC;

-- sf_sales_partition makes and attaches block b's partition.
CREATE FUNCTION sf_sales_partition(b bigint) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('CREATE TABLE %I (LIKE sales INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', 'sales_b' || b);
	EXECUTE format('ALTER TABLE sales ATTACH PARTITION %I FOR VALUES IN (%s)', 'sales_b' || b, b);
END $$;
CREATE FUNCTION sf_block_partitioned() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM sf_sales_partition(NEW.id);
	RETURN NULL;
END $$;
REVOKE ALL ON FUNCTION sf_sales_partition(bigint), sf_block_partitioned() FROM PUBLIC;

SELECT sf_sales_partition(id) FROM blocks ORDER BY id;
INSERT INTO sales (ticket, block_id, position, pack_serial, kiosk, seq, sold_at, player, stake_cents, prize_cents, unit, revealed, received_at)
SELECT ticket, block_id, position, pack_serial, kiosk, seq, sold_at, player, stake_cents, prize_cents, unit, revealed, received_at FROM sales_0012;
DROP TABLE sales_0012;
-- As 0005's: NOT VALID keeps the rows forged before it for the audit to
-- list; every partition made from now on has it (LIKE … INCLUDING
-- CONSTRAINTS), and it holds every new row.
ALTER TABLE sales ADD CONSTRAINT sales_amounts CHECK (stake_cents IN (50, 100, 200) AND prize_cents >= 0 AND position >= 0) NOT VALID;
CREATE TRIGGER sales_counted AFTER INSERT ON sales REFERENCING NEW TABLE AS counted
	FOR EACH STATEMENT EXECUTE FUNCTION sf_count_sales();
CREATE TRIGGER block_partitioned AFTER INSERT ON blocks FOR EACH ROW EXECUTE FUNCTION sf_block_partitioned();

-- push_sales, as 0005 made it, but that it finds a sale the central holds
-- by its block and position (its partition's key), not by its ticket in
-- every partition, and refuses a push that numbers two sales alike, which
-- the unique (kiosk, seq) used to drop.
CREATE OR REPLACE FUNCTION push_sales(p jsonb)
RETURNS TABLE (applied bigint, duplicates bigint, conflicts bigint, last_seq bigint)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp SET lock_timeout = '2s' AS $$
#variable_conflict use_column
DECLARE
	k text := sf_kiosk_lock();
	st fleet_settings%ROWTYPE;
	v_last bigint; lo bigint; hi bigint; n bigint; v_rows bigint;
	v_app bigint; v_dup bigint; v_conf bigint; v_room bigint;
	bid bigint;
BEGIN
	PERFORM sf_push_bounds(p);
	SELECT * INTO st FROM fleet_settings;
	SELECT kk.last_sale_seq INTO v_last FROM kiosks kk WHERE kk.id = k;
	SELECT min(x.seq), max(x.seq), count(DISTINCT x.seq), count(*) INTO lo, hi, n, v_rows
	  FROM jsonb_to_recordset(p) AS x(seq bigint) WHERE x.seq > v_last;
	IF n > 0 AND (lo <> v_last + 1 OR hi - lo + 1 <> n) THEN
		RAISE EXCEPTION 'kiosk % pushed sales % to %, the central has up to %', k, lo, hi, v_last USING ERRCODE = 'SF002';
	END IF;
	IF v_rows <> n THEN
		RAISE EXCEPTION 'kiosk % pushed two sales under one number', k USING ERRCODE = 'SF002';
	END IF;
	v_room := sf_conflicts_room(k);
	-- A void (which locks its pack for update) waits for this push, and the
	-- other way round, so a pack's sold and voided units never overlap.
	-- Only this kiosk's own packs: another kiosk's serial in a push is a
	-- conflict, never a lock on that kiosk's pack.
	PERFORM 1 FROM packs WHERE serial IN (SELECT x.pack FROM jsonb_to_recordset(p) AS x(pack text)) AND kiosk = k
	 ORDER BY serial FOR NO KEY UPDATE;
	WITH inc AS (
		SELECT x.*, pk.block_id, pk.first AS p_first, pk.count AS p_count, pk.kiosk AS p_kiosk, pk.status AS p_status,
		       pk.claimed_at AS p_claimed, bl.stake_cents AS b_stake,
		       sf_ticket(bl.emission, bl.stake_cents, bl.number, x.position) AS canon,
		       u.b_unit,
		       -- The unit's prize: the first 8 bytes of its leaf tail (big-endian cents, engine/merkle.go).
		       ('x' || encode(substring(lt.tail FROM 1 FOR 8), 'hex'))::bit(64)::bigint AS b_prize
		  FROM jsonb_to_recordset(p) AS x(seq bigint, ticket text, pack text, position int, sold_at timestamptz,
		                                  player text, stake_cents bigint, prize_cents bigint, unit text, revealed boolean)
		  LEFT JOIN packs pk ON pk.serial = x.pack AND pk.kiosk = k
		  LEFT JOIN blocks bl ON bl.id = pk.block_id
		  LEFT JOIN LATERAL (SELECT substring(bl.units FROM x.position * 3 + 1 FOR 3) AS b_unit) u ON true
		  LEFT JOIN leaf_tails lt ON lt.stake_cents = bl.stake_cents AND lt.unit = u.b_unit
	), judged AS (
		SELECT inc.*, CASE
			WHEN EXISTS (SELECT 1 FROM sales s WHERE s.block_id = inc.block_id AND s.position = inc.position AND s.ticket = inc.ticket AND s.kiosk = k AND s.seq = inc.seq
			             AND s.sold_at = inc.sold_at AND s.player = inc.player) THEN 'duplicate'
			WHEN EXISTS (SELECT 1 FROM sale_conflicts c WHERE c.kiosk = k AND c.seq = inc.seq AND c.ticket = inc.ticket) THEN 'duplicate'
			WHEN inc.seq <= v_last THEN 'sequence number already used by another sale'
			WHEN inc.block_id IS NULL THEN 'pack not held by this kiosk'
			WHEN inc.p_status = 'voided' THEN 'pack voided'
			WHEN inc.position < inc.p_first OR inc.position >= inc.p_first + inc.p_count THEN 'position outside the pack'
			WHEN inc.ticket IS DISTINCT FROM inc.canon THEN 'ticket is not the position''s (check digit included)'
			WHEN inc.stake_cents IS DISTINCT FROM inc.b_stake THEN 'stake differs from the block'
			WHEN inc.unit IS DISTINCT FROM encode(inc.b_unit, 'hex') THEN 'unit differs from the block''s'
			WHEN inc.prize_cents IS DISTINCT FROM inc.b_prize THEN 'prize differs from the block''s'
			WHEN inc.sold_at IS NULL OR inc.sold_at < inc.p_claimed - st.clock_skew THEN 'sold before its pack was claimed'
			WHEN inc.sold_at > now() + st.clock_skew THEN 'sold in the future'
			WHEN inc.player IS NULL OR inc.revealed IS NULL THEN 'incomplete sale'
			WHEN EXISTS (SELECT 1 FROM sales s WHERE s.block_id = inc.block_id AND s.position = inc.position) THEN 'position already sold'
		END AS verdict
		FROM inc
	), ins AS (
		INSERT INTO sales (ticket, block_id, position, pack_serial, kiosk, seq, sold_at, player, stake_cents, prize_cents, unit, revealed)
		SELECT j.canon, j.block_id, j.position, j.pack, k, j.seq, j.sold_at, j.player, j.b_stake, j.b_prize, j.b_unit, j.revealed
		  FROM judged j WHERE j.verdict IS NULL
		ON CONFLICT DO NOTHING
		RETURNING ticket, block_id, pack_serial
	), refused AS (
		SELECT j.* FROM judged j
		 WHERE j.verdict IS DISTINCT FROM 'duplicate' AND (j.verdict IS NOT NULL OR j.ticket NOT IN (SELECT ins.ticket FROM ins))
	), conf AS (
		INSERT INTO sale_conflicts (kiosk, seq, ticket, reason, sale)
		SELECT k, j.seq, coalesce(j.ticket, ''), coalesce(j.verdict, 'position already sold'),
		       jsonb_build_object('pack', j.pack, 'position', j.position, 'sold_at', j.sold_at, 'player', j.player,
		                          'stake_cents', j.stake_cents, 'prize_cents', j.prize_cents, 'unit', j.unit)
		  FROM (SELECT * FROM refused ORDER BY seq LIMIT v_room) j
		ON CONFLICT DO NOTHING
		RETURNING 1
	), packed AS (
		UPDATE packs pk SET sold = pk.sold + x.n
		  FROM (SELECT ins.pack_serial, count(*) AS n FROM ins GROUP BY ins.pack_serial) x
		 WHERE pk.serial = x.pack_serial
		RETURNING pk.serial
	)
	SELECT (SELECT count(*) FROM ins), (SELECT count(*) FROM judged WHERE verdict = 'duplicate'), (SELECT count(*) FROM refused)
	  INTO v_app, v_dup, v_conf;
	UPDATE kiosks kk SET last_sale_seq = greatest(kk.last_sale_seq, coalesce(hi, 0)), last_seen = now(),
	       conflicts_dropped = kk.conflicts_dropped + greatest(v_conf - v_room, 0)
	 WHERE kk.id = k;
	FOR bid IN SELECT DISTINCT pk.block_id FROM jsonb_to_recordset(p) AS x(pack text) JOIN packs pk ON pk.serial = x.pack AND pk.kiosk = k LOOP
		PERFORM sf_close_if_done(bid);
	END LOOP;
	RETURN QUERY SELECT v_app, v_dup, v_conf, greatest(v_last, coalesce(hi, 0));
END $$;

-- Archived blocks (`central archive`): a closed block's packs and sales
-- exported to a file, verified by the audit's own checks, recorded here
-- with the file's SHA-256, then its partition detached and dropped.
-- `central audit --archive DIR` verifies each from its file.
CREATE TABLE archived_blocks (
	block_id    bigint PRIMARY KEY REFERENCES blocks,
	file        text NOT NULL,
	sha256      bytea NOT NULL CHECK (length(sha256) = 32),
	sales       bigint NOT NULL CHECK (sales >= 0),
	archived_at timestamptz NOT NULL DEFAULT now()
);
REVOKE ALL ON archived_blocks FROM PUBLIC;
-- A block closed this long ago may be archived; its tickets are then no
-- longer looked up at a kiosk: at least the time players have to claim.
ALTER TABLE fleet_settings ADD COLUMN archive_after interval NOT NULL DEFAULT '90 days' CHECK (archive_after >= '0');
