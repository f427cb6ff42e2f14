-- The central takes nothing on a kiosk's word (issue 36), enforced here,
-- inside the functions that are a kiosk role's only rights, never only in
-- Go: a kiosk cannot hoard a block, sell a unit whose outcome went to
-- another kiosk, push a sale or a movement that is not what the block and
-- the ledger say, nor stall the other kiosks. New SQLSTATEs (0002's list
-- goes on):
--   SF007 claim refused: the kiosk holds enough unsold units at the stake
--   SF008 claim refused: the kiosk claims too often (claims_per_minute)
--   SF009 push refused: more rows or bytes than a push may carry
--   SF010 claim refused: every pack left at the stake is being claimed by
--         another kiosk's call that has not ended (retry)

-- The operator's limits, one row; `UPDATE fleet_settings SET …` changes them
-- (docs/fleet.md, "What the database enforces").
CREATE TABLE fleet_settings (
	one                 boolean PRIMARY KEY DEFAULT true CHECK (one),
	-- A claim is granted while the kiosk's unsold units at the stake (its
	-- claimed packs' units less the sales the central has) are at most
	-- claim_packs_ahead packs plus the unsold part of its current pack
	-- allowed by claim_sold_percent: by default one pack ahead, and the
	-- next once the current one is 75 % sold and pushed.
	claim_packs_ahead   int NOT NULL DEFAULT 1 CHECK (claim_packs_ahead >= 0),
	claim_sold_percent  int NOT NULL DEFAULT 75 CHECK (claim_sold_percent BETWEEN 0 AND 100),
	claims_per_minute   int NOT NULL DEFAULT 30 CHECK (claims_per_minute >= 1),
	-- A push carries at most this many rows and bytes (the kiosk sends 1 000
	-- movements at most per push: engine's pushBatch).
	push_max_rows       int NOT NULL DEFAULT 1000 CHECK (push_max_rows >= 1),
	push_max_bytes      int NOT NULL DEFAULT 1048576 CHECK (push_max_bytes >= 1024),
	-- The kiosk's clock may be this far ahead of the central's; a sale is
	-- refused before its pack's claim or after now plus this.
	clock_skew          interval NOT NULL DEFAULT '5 min' CHECK (clock_skew >= '0'),
	-- A movement older than this (by the kiosk's clock) is refused.
	movement_max_age    interval NOT NULL DEFAULT '1 year' CHECK (movement_max_age > '0'),
	-- Refused sales and movements stored per kiosk; beyond, only counted.
	conflicts_per_kiosk int NOT NULL DEFAULT 1000 CHECK (conflicts_per_kiosk >= 1),
	-- Applied to each kiosk's login role (sf_kiosk_role_limits).
	kiosk_connections   int NOT NULL DEFAULT 8 CHECK (kiosk_connections >= 1),
	kiosk_idle_in_transaction interval NOT NULL DEFAULT '5 s' CHECK (kiosk_idle_in_transaction > '0'),
	kiosk_statement_timeout   interval NOT NULL DEFAULT '30 s' CHECK (kiosk_statement_timeout > '0')
);
INSERT INTO fleet_settings DEFAULT VALUES;

-- Per pack, the sales the central has (push_sales keeps it): the claim's
-- count of what a kiosk holds reads it instead of counting sales.
ALTER TABLE packs ADD COLUMN sold int NOT NULL DEFAULT 0 CHECK (sold >= 0);
UPDATE packs p SET sold = (SELECT count(*) FROM sales s WHERE s.pack_serial = p.serial);
CREATE INDEX packs_kiosk_open ON packs (kiosk) WHERE status IN ('claimed', 'returned');
CREATE INDEX packs_kiosk_claimed_at ON packs (kiosk, claimed_at);

-- Refused rows beyond conflicts_per_kiosk: counted, not stored.
ALTER TABLE kiosks ADD COLUMN conflicts_dropped bigint NOT NULL DEFAULT 0;

-- What a sale and a movement can be, whatever pushed them. NOT VALID: rows
-- forged before this migration stay for the audit to list (it checks them
-- again), every new row is held to it.
ALTER TABLE sales
	ADD CONSTRAINT sales_amounts CHECK (stake_cents IN (50, 100, 200) AND prize_cents >= 0 AND position >= 0) NOT VALID;
ALTER TABLE movements
	ADD CONSTRAINT movements_kind CHECK (kind IN ('grant', 'credit', 'payout', 'sale')) NOT VALID,
	ADD CONSTRAINT movements_amounts CHECK (debit_cents BETWEEN 0 AND 100000000 AND credit_cents BETWEEN 0 AND 100000000) NOT VALID,
	ADD CONSTRAINT movements_direction CHECK (CASE kind
		WHEN 'sale' THEN debit_cents > 0
		WHEN 'payout' THEN debit_cents > 0 AND credit_cents = 0
		ELSE credit_cents > 0 AND debit_cents = 0 END) NOT VALID;

-- A released remainder used to become an 'available' pack for the next
-- claimer, whose outcomes the releasing kiosk had already received. Those
-- left are voided: never sold, counted with the voided units (the closing
-- report and the audit tally them with the prize table).
WITH v AS (
	UPDATE packs SET status = 'voided', voided_at = now(),
	       void_reason = 'released before migration 0005: its outcomes had gone to the releasing kiosk'
	 WHERE status = 'available'
	RETURNING block_id, count
), n AS (
	SELECT block_id, sum(count) AS units FROM v GROUP BY block_id
)
UPDATE block_cursors bc SET voided = bc.voided + n.units FROM n WHERE bc.block_id = n.block_id;
SELECT sf_close_if_done(block_id) FROM block_cursors;

-- The Damm check digit of a string of decimal digits (engine/ticket.go).
CREATE FUNCTION sf_damm(digits text) RETURNS text LANGUAGE plpgsql IMMUTABLE STRICT AS $$
DECLARE
	t constant int[] := '{{0,3,1,7,5,9,8,6,4,2},{7,0,9,2,1,5,4,8,6,3},{4,2,0,6,8,7,1,3,5,9},{1,7,5,0,9,8,3,4,2,6},
	                      {6,1,2,3,0,4,5,9,7,8},{3,6,7,4,2,0,9,5,8,1},{5,8,6,9,7,2,0,1,3,4},{8,9,4,5,3,6,2,0,1,7},
	                      {9,4,3,8,6,1,7,2,0,5},{2,5,8,1,4,3,6,7,9,0}}';
	i int := 0;
	n int;
BEGIN
	FOR n IN 1..length(digits) LOOP
		i := t[i + 1][ascii(substr(digits, n, 1)) - 47];
	END LOOP;
	RETURN i::text;
END $$;

-- The canonical ticket of a position (engine.Ticket.String): EE-SSS-BBBB-IIIIII-C.
CREATE FUNCTION sf_ticket(e int, s int, n int, pos int) RETURNS text LANGUAGE sql IMMUTABLE STRICT AS $$
	SELECT sf_block_ref(e, s, n) || '-' || lpad(pos::text, 6, '0') || '-'
	       || sf_damm(lpad(e::text, 2, '0') || lpad(s::text, 3, '0') || lpad(n::text, 4, '0') || lpad(pos::text, 6, '0'))
$$;

-- sf_kiosk_lock identifies the calling kiosk and locks its own row: each
-- kiosk's calls are serialised on a row no other kiosk ever locks (FOR NO
-- KEY UPDATE leaves the foreign keys of its own inserts free).
CREATE FUNCTION sf_kiosk_lock() RETURNS text LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE k text;
BEGIN
	SELECT id INTO k FROM kiosks WHERE role = session_user FOR NO KEY UPDATE;
	IF k IS NULL THEN
		RAISE EXCEPTION 'role % is not a kiosk of this central', session_user USING ERRCODE = 'SF004';
	END IF;
	RETURN k;
END $$;

-- sf_push_bounds refuses a push of more rows or bytes than the settings
-- allow, before any of it is looked at.
CREATE FUNCTION sf_push_bounds(p jsonb) RETURNS void LANGUAGE plpgsql AS $$
DECLARE st fleet_settings%ROWTYPE;
BEGIN
	SELECT * INTO st FROM fleet_settings;
	IF jsonb_typeof(p) <> 'array' OR jsonb_array_length(p) > st.push_max_rows OR octet_length(p::text) > st.push_max_bytes THEN
		RAISE EXCEPTION 'a push carries a JSON array of at most % rows and % bytes', st.push_max_rows, st.push_max_bytes
			USING ERRCODE = 'SF009';
	END IF;
END $$;

-- sf_conflicts_room is how many more refused rows kiosk k may have stored.
CREATE FUNCTION sf_conflicts_room(k text) RETURNS bigint LANGUAGE sql STABLE AS $$
	SELECT greatest(0, (SELECT conflicts_per_kiosk FROM fleet_settings)
	                   - (SELECT count(*) FROM sale_conflicts WHERE kiosk = k) - (SELECT count(*) FROM movement_conflicts WHERE kiosk = k))
$$;

-- No hot row: a kiosk holding a transaction open after one of its calls
-- must hold nothing another kiosk waits for. Claims used to cut packs from
-- each block's cursor row (one row all claimers of a stake update), and
-- pushes and releases to count on it. Now every block is cut into its
-- packs ahead ('available': never handed out), at emission time
-- (sf_cut_packs) and here for the blocks in play; a claim takes one with
-- SKIP LOCKED; a push counts on its own packs' rows (packs.sold); the
-- block's counts are summed from its packs (block_counts), and the
-- cursor's next, sold and voided are no longer kept by the kiosks' calls.
CREATE FUNCTION sf_cut_packs(b bigint) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
	c block_cursors%ROWTYPE;
	ref text;
	n int;
BEGIN
	SELECT * INTO STRICT c FROM block_cursors WHERE block_id = b FOR UPDATE;
	SELECT sf_block_ref(bl.emission, bl.stake_cents, bl.number) INTO ref FROM blocks bl WHERE bl.id = b;
	INSERT INTO packs (serial, block_id, first, count, status)
	SELECT ref || '-P' || lpad((c.packs + i + 1)::text, 5, '0'), b, c.next + i * c.pack_size,
	       least(c.pack_size, c.size - c.next - i * c.pack_size), 'available'
	  FROM generate_series(0, (c.size - c.next + c.pack_size - 1) / c.pack_size - 1) AS i;
	GET DIAGNOSTICS n = ROW_COUNT;
	UPDATE block_cursors SET packs = packs + n, next = size WHERE block_id = b;
	RETURN n;
END $$;
SELECT sf_cut_packs(block_id) FROM block_cursors WHERE next < size;

-- A block's counts, from its packs: units handed out (claimed), sold (the
-- sales the central has, counted per pack by push_sales) and voided (the
-- unsold units of voided packs).
CREATE VIEW block_counts AS
SELECT c.block_id, c.size, c.next,
       coalesce(sum(p.count) FILTER (WHERE p.status <> 'available'), 0)::int AS handed_out,
       coalesce(sum(p.sold), 0)::int AS sold,
       coalesce(sum(p.count - p.sold) FILTER (WHERE p.status = 'voided'), 0)::int AS voided
  FROM block_cursors c LEFT JOIN packs p ON p.block_id = c.block_id
 GROUP BY c.block_id, c.size, c.next;
REVOKE ALL ON block_counts FROM PUBLIC;

-- Closes the block when every position is sold or voided, revealing its
-- seed. Skips a block row another transaction is closing (FOR NO KEY
-- UPDATE: the key share of a sale's foreign key does not stand in the
-- way). Two last pushes committing together may each miss the other's
-- sales: heartbeat() closes what they left.
CREATE OR REPLACE FUNCTION sf_close_if_done(b bigint) RETURNS void LANGUAGE sql AS $$
	UPDATE blocks bl SET closed_at = now(), seed = (SELECT seed FROM block_seeds WHERE block_id = bl.id)
	 WHERE bl.id = (SELECT x.id FROM blocks x WHERE x.id = b AND x.closed_at IS NULL FOR NO KEY UPDATE SKIP LOCKED)
	   AND (SELECT n.sold + n.voided = n.size FROM block_counts n WHERE n.block_id = b)
$$;

-- The blocks every pack of which is handed out, and done: closed.
CREATE FUNCTION sf_close_done() RETURNS void LANGUAGE sql AS $$
	SELECT sf_close_if_done(bl.id) FROM blocks bl
	 WHERE bl.closed_at IS NULL AND NOT EXISTS (SELECT 1 FROM packs p WHERE p.block_id = bl.id AND p.status = 'available')
$$;

CREATE OR REPLACE FUNCTION heartbeat(p_backlog int) RETURNS timestamptz
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE k text := sf_kiosk_lock();
BEGIN
	UPDATE kiosks SET last_seen = now(), backlog = greatest(p_backlog, 0), backlog_at = now() WHERE id = k;
	PERFORM sf_close_done();
	RETURN now();
END $$;

-- The fleet view's per-stake counts, from block_counts (0003's read the
-- cursor's counters, which the kiosks' calls no longer keep).
CREATE OR REPLACE FUNCTION sf_fleet_view() RETURNS jsonb LANGUAGE sql STABLE AS $$
	SELECT jsonb_build_object(
		'at', now(),
		'kiosks', coalesce((SELECT jsonb_agg(jsonb_build_object(
				'id', k.id, 'last_seen', k.last_seen, 'backlog', coalesce(k.backlog, 0), 'backlog_at', k.backlog_at,
				'sales', (SELECT count(*) FROM sales s WHERE s.kiosk = k.id),
				'held', coalesce((SELECT jsonb_agg(jsonb_build_object('stake_cents', h.stake_cents, 'packs', h.packs, 'left', h.units_left)
				                                   ORDER BY h.stake_cents)
					FROM (SELECT bl.stake_cents, count(*) AS packs, sum(p.count - p.sold) AS units_left
					        FROM packs p JOIN blocks bl ON bl.id = p.block_id
					       WHERE p.kiosk = k.id AND p.status = 'claimed' AND p.count > p.sold
					       GROUP BY bl.stake_cents) h), '[]'::jsonb))
			ORDER BY k.id) FROM kiosks k), '[]'::jsonb),
		'stakes', coalesce((SELECT jsonb_agg(jsonb_build_object('stake_cents', x.stake_cents, 'blocks', x.blocks, 'closed', x.closed,
				'size', x.size, 'handed_out', x.handed_out, 'sold', x.sold, 'voided', x.voided) ORDER BY x.stake_cents)
			FROM (SELECT bl.stake_cents, count(*) AS blocks, count(bl.closed_at) AS closed, sum(c.size) AS size,
			             sum(c.handed_out) AS handed_out, sum(c.sold) AS sold, sum(c.voided) AS voided
			        FROM blocks bl JOIN block_counts c ON c.block_id = bl.id
			       GROUP BY bl.stake_cents) x), '[]'::jsonb))
$$;

-- claim_pack hands this kiosk the first pack left at the stake (lowest
-- emission, block and position), within its limits (SF007, SF008), under
-- the lock of its own row. A released remainder is never handed out again
-- (release_pack voids it). Packs being claimed by other kiosks' calls are
-- skipped, never waited for.
CREATE OR REPLACE FUNCTION claim_pack(p_stake int)
RETURNS TABLE (serial text, emission int, stake_cents int, number int, size int, first int, count int,
               units bytea, salts bytea, proof bytea, root bytea)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
#variable_conflict use_column
DECLARE
	k text := sf_kiosk_lock();
	st fleet_settings%ROWTYPE;
	pk packs%ROWTYPE;
	v_held bigint; v_recent bigint; v_psize int; v_allowed bigint;
BEGIN
	SELECT * INTO st FROM fleet_settings;
	SELECT count(*) INTO v_recent FROM packs p WHERE p.kiosk = k AND p.claimed_at > now() - interval '1 minute';
	IF v_recent >= st.claims_per_minute THEN
		RAISE EXCEPTION 'kiosk % claimed % packs within a minute (claims_per_minute %)', k, v_recent, st.claims_per_minute
			USING ERRCODE = 'SF008';
	END IF;
	SELECT c.pack_size INTO v_psize FROM packs x JOIN blocks y ON y.id = x.block_id JOIN block_cursors c ON c.block_id = x.block_id
	 WHERE x.status = 'available' AND y.stake_cents = p_stake ORDER BY y.emission, y.number, x.first LIMIT 1;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'no unit left to hand out at a stake of % cents', p_stake USING ERRCODE = 'SF001';
	END IF;
	SELECT coalesce(sum(greatest(p.count - p.sold, 0)), 0) INTO v_held
	  FROM packs p JOIN blocks y ON y.id = p.block_id
	 WHERE p.kiosk = k AND p.status IN ('claimed', 'returned') AND y.stake_cents = p_stake;
	v_allowed := st.claim_packs_ahead::bigint * v_psize + v_psize::bigint * (100 - st.claim_sold_percent) / 100;
	IF v_held > v_allowed THEN
		RAISE EXCEPTION 'kiosk % holds % unsold units at a stake of % cents: the next pack comes once it holds % or fewer',
			k, v_held, p_stake, v_allowed USING ERRCODE = 'SF007';
	END IF;
	FOR i IN 1..5 LOOP -- a pack claimed under our snapshot is dropped by the recheck: look again
		UPDATE packs a SET kiosk = k, status = 'claimed', claimed_at = now()
		 WHERE a.serial = (SELECT x.serial FROM packs x JOIN blocks y ON y.id = x.block_id
		                    WHERE x.status = 'available' AND y.stake_cents = p_stake
		                    ORDER BY y.emission, y.number, x.first LIMIT 1 FOR UPDATE OF x SKIP LOCKED)
		   AND a.status = 'available'
		RETURNING a.* INTO pk;
		IF FOUND THEN
			RETURN QUERY SELECT * FROM sf_pack_payload(pk.serial);
			RETURN;
		END IF;
		PERFORM 1 FROM packs x JOIN blocks y ON y.id = x.block_id WHERE x.status = 'available' AND y.stake_cents = p_stake;
		IF NOT FOUND THEN
			RAISE EXCEPTION 'no unit left to hand out at a stake of % cents', p_stake USING ERRCODE = 'SF001';
		END IF;
	END LOOP;
	RAISE EXCEPTION 'every pack left at a stake of % cents is being claimed by another kiosk: retry', p_stake USING ERRCODE = 'SF010';
END $$;

-- release_pack gives back the unsold remainder [p_from, end) of a pack this
-- kiosk holds. The kiosk has received the remainder's outcomes, so no other
-- kiosk may ever sell it: it becomes a voided pack of its own (kept with the
-- releasing kiosk's name, counted voided for the block's closure), the
-- pack is cut to [first, p_from) ('returned'), or voided whole when nothing
-- of it was sold. It returns the voided remainder's serial ('' when nothing
-- remained).
CREATE OR REPLACE FUNCTION release_pack(p_serial text, p_from int) RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
#variable_conflict use_column
DECLARE
	k text := sf_kiosk_lock();
	pk packs%ROWTYPE;
	s text;
BEGIN
	SELECT * INTO pk FROM packs WHERE serial = p_serial AND kiosk = k FOR UPDATE;
	IF NOT FOUND OR pk.status <> 'claimed' THEN
		RAISE EXCEPTION 'pack % is not held by kiosk %', p_serial, k USING ERRCODE = 'SF005';
	END IF;
	IF p_from < pk.first OR p_from > pk.first + pk.count THEN
		RAISE EXCEPTION 'position % is outside pack %', p_from, p_serial USING ERRCODE = 'SF005';
	END IF;
	IF p_from = pk.first + pk.count THEN
		RETURN '';
	END IF;
	IF EXISTS (SELECT 1 FROM sales WHERE pack_serial = pk.serial AND position >= p_from) THEN
		RAISE EXCEPTION 'pack % has sales from position % on', p_serial, p_from USING ERRCODE = 'SF005';
	END IF;
	IF p_from = pk.first THEN
		UPDATE packs SET status = 'voided', voided_at = now(), void_reason = 'released unsold by kiosk ' || k WHERE serial = pk.serial;
		s := pk.serial;
	ELSE
		UPDATE packs SET count = p_from - pk.first, status = 'returned' WHERE serial = pk.serial;
		-- Named after its pack: no counter row shared with other kiosks.
		s := pk.serial || '-R' || lpad(p_from::text, 6, '0');
		INSERT INTO packs (serial, block_id, first, count, kiosk, status, voided_at, void_reason)
		VALUES (s, pk.block_id, p_from, pk.first + pk.count - p_from, k, 'voided', now(), 'released unsold by kiosk ' || k);
	END IF;
	PERFORM sf_close_if_done(pk.block_id);
	RETURN s;
END $$;

-- push_sales applies a batch of this kiosk's sales (a JSON array, see
-- central/client.go) in one statement. A row the central already holds
-- identically, or already refused, is a duplicate (a re-push). Anything
-- else that is not exactly a sale of this kiosk is refused, kept in
-- sale_conflicts for the audit (up to conflicts_per_kiosk, then counted)
-- and never merged: another kiosk's pack, a voided pack, a position
-- outside the pack or already sold, a ticket that is not the position's
-- canonical one (check digit included), a stake, unit or prize that is
-- not the block's, a sale time before its pack's claim or after now plus
-- clock_skew. What is stored is the central's own copy of the unit and
-- its prize, never the kiosk's bytes.
CREATE OR REPLACE FUNCTION push_sales(p jsonb)
RETURNS TABLE (applied bigint, duplicates bigint, conflicts bigint, last_seq bigint)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
#variable_conflict use_column
DECLARE
	k text := sf_kiosk_lock();
	st fleet_settings%ROWTYPE;
	v_last bigint; lo bigint; hi bigint; n bigint;
	v_app bigint; v_dup bigint; v_conf bigint; v_room bigint;
	bid bigint;
BEGIN
	PERFORM sf_push_bounds(p);
	SELECT * INTO st FROM fleet_settings;
	SELECT kk.last_sale_seq INTO v_last FROM kiosks kk WHERE kk.id = k;
	SELECT min(x.seq), max(x.seq), count(DISTINCT x.seq) INTO lo, hi, n
	  FROM jsonb_to_recordset(p) AS x(seq bigint) WHERE x.seq > v_last;
	IF n > 0 AND (lo <> v_last + 1 OR hi - lo + 1 <> n) THEN
		RAISE EXCEPTION 'kiosk % pushed sales % to %, the central has up to %', k, lo, hi, v_last USING ERRCODE = 'SF002';
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
			WHEN EXISTS (SELECT 1 FROM sales s WHERE s.ticket = inc.ticket AND s.kiosk = k AND s.seq = inc.seq
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
			WHEN EXISTS (SELECT 1 FROM sales s WHERE s.ticket = inc.ticket) THEN 'position already sold'
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

-- push_movements applies a batch of this kiosk's ledger movements, as
-- push_sales does its sales. A movement that cannot be one of a kiosk's
-- ledger (an unknown kind, an amount below zero or over the engine's
-- MaxAmount, a direction its kind forbids, a time older than
-- movement_max_age or ahead of now plus clock_skew) is refused and kept as
-- a conflict, never merged. Refused rows rather than a refused push: the
-- kiosk's sequence goes on (its later movements are not held hostage by
-- one bad row), a re-push of the same batch is a duplicate as before, and
-- the audit lists every refusal.
CREATE OR REPLACE FUNCTION push_movements(p jsonb)
RETURNS TABLE (applied bigint, duplicates bigint, conflicts bigint, last_seq bigint)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
#variable_conflict use_column
DECLARE
	k text := sf_kiosk_lock();
	st fleet_settings%ROWTYPE;
	v_last bigint; lo bigint; hi bigint; n bigint;
	v_app bigint; v_dup bigint; v_conf bigint; v_room bigint;
BEGIN
	PERFORM sf_push_bounds(p);
	SELECT * INTO st FROM fleet_settings;
	SELECT kk.last_movement_seq INTO v_last FROM kiosks kk WHERE kk.id = k;
	SELECT min(x.seq), max(x.seq), count(DISTINCT x.seq) INTO lo, hi, n
	  FROM jsonb_to_recordset(p) AS x(seq bigint) WHERE x.seq > v_last;
	IF n > 0 AND (lo <> v_last + 1 OR hi - lo + 1 <> n) THEN
		RAISE EXCEPTION 'kiosk % pushed movements % to %, the central has up to %', k, lo, hi, v_last USING ERRCODE = 'SF002';
	END IF;
	v_room := sf_conflicts_room(k);
	WITH judged AS (
		SELECT x.*, CASE
			WHEN EXISTS (SELECT 1 FROM movements m WHERE m.kiosk = k AND m.id = x.id AND m.seq = x.seq) THEN 'duplicate'
			WHEN EXISTS (SELECT 1 FROM movement_conflicts c WHERE c.kiosk = k AND c.seq = x.seq) THEN 'duplicate'
			WHEN x.seq <= v_last THEN 'sequence number already used by another movement'
			WHEN x.id IS NULL OR x.player IS NULL OR x.at IS NULL OR x.debit_cents IS NULL OR x.credit_cents IS NULL THEN 'incomplete movement'
			WHEN x.kind IS NULL OR x.kind NOT IN ('grant', 'credit', 'payout', 'sale') THEN 'unknown kind'
			WHEN x.debit_cents < 0 OR x.credit_cents < 0 THEN 'negative amount'
			WHEN x.debit_cents > 100000000 OR x.credit_cents > 100000000 THEN 'amount over the maximum'
			WHEN x.kind = 'sale' AND x.debit_cents = 0 THEN 'a sale that takes no stake'
			WHEN x.kind = 'payout' AND (x.debit_cents = 0 OR x.credit_cents <> 0) THEN 'a payout that pays nothing out'
			WHEN x.kind IN ('grant', 'credit') AND (x.credit_cents = 0 OR x.debit_cents <> 0) THEN 'a ' || x.kind || ' that credits nothing'
			WHEN x.at < now() - st.movement_max_age THEN 'dated too far in the past'
			WHEN x.at > now() + st.clock_skew THEN 'dated in the future'
		END AS verdict
		FROM jsonb_to_recordset(p) AS x(seq bigint, id text, player text, kind text, debit_cents bigint,
		                                credit_cents bigint, ticket text, at timestamptz)
	), ins AS (
		INSERT INTO movements (kiosk, id, seq, player, kind, debit_cents, credit_cents, ticket, at)
		SELECT k, j.id, j.seq, j.player, j.kind, j.debit_cents, j.credit_cents, j.ticket, j.at FROM judged j WHERE j.verdict IS NULL
		ON CONFLICT DO NOTHING
		RETURNING id
	), refused AS (
		SELECT j.* FROM judged j
		 WHERE j.verdict IS DISTINCT FROM 'duplicate' AND (j.verdict IS NOT NULL OR j.id NOT IN (SELECT ins.id FROM ins))
	), conf AS (
		INSERT INTO movement_conflicts (kiosk, seq, reason, movement)
		SELECT k, j.seq, coalesce(j.verdict, 'movement id already used'), to_jsonb(j) - 'verdict'
		  FROM (SELECT * FROM refused ORDER BY seq LIMIT v_room) j
		ON CONFLICT DO NOTHING
		RETURNING 1
	)
	SELECT (SELECT count(*) FROM ins), (SELECT count(*) FROM judged WHERE verdict = 'duplicate'), (SELECT count(*) FROM refused)
	  INTO v_app, v_dup, v_conf;
	UPDATE kiosks kk SET last_movement_seq = greatest(kk.last_movement_seq, coalesce(hi, 0)), last_seen = now(),
	       conflicts_dropped = kk.conflicts_dropped + greatest(v_conf - v_room, 0)
	 WHERE kk.id = k;
	RETURN QUERY SELECT v_app, v_dup, v_conf, greatest(v_last, coalesce(hi, 0));
END $$;

-- Look-ups are rationed under the lock of the kiosk's own row, not an
-- advisory lock whose key any role can compute (and hold against it).
CREATE OR REPLACE FUNCTION lookup_ticket(p_ticket text)
RETURNS TABLE (kiosk text, pack text, seq bigint, sold_at timestamptz, player text, unit bytea, revealed boolean)
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = public, pg_temp AS $$
#variable_conflict use_column
DECLARE
	k text := sf_kiosk();
	per_day constant int := 100; -- LookupsPerDay (README, "Fleet operations")
	v_seller text;
	v_open boolean;
BEGIN
	SELECT s.kiosk, bl.closed_at IS NULL INTO v_seller, v_open FROM sales s JOIN blocks bl ON bl.id = s.block_id WHERE s.ticket = p_ticket;
	IF NOT FOUND THEN -- not sold: counted too if its block is in play (probing what is unsold)
		SELECT bl.closed_at IS NULL INTO v_open FROM blocks bl WHERE sf_block_ref(bl.emission, bl.stake_cents, bl.number) = left(p_ticket, 11);
	END IF;
	IF coalesce(v_open, false) AND v_seller IS DISTINCT FROM k THEN
		PERFORM sf_kiosk_lock();
		DELETE FROM ticket_lookups l WHERE l.kiosk = k AND l.at <= now() - interval '1 day';
		IF NOT EXISTS (SELECT 1 FROM ticket_lookups l WHERE l.kiosk = k AND l.ticket = p_ticket) THEN
			IF (SELECT count(DISTINCT l.ticket) FROM ticket_lookups l WHERE l.kiosk = k) >= per_day THEN
				RAISE EXCEPTION 'kiosk % looked up % tickets sold elsewhere from blocks in play within 24 hours', k, per_day USING ERRCODE = 'SF006';
			END IF;
			INSERT INTO ticket_lookups (kiosk, ticket) VALUES (k, p_ticket);
		END IF;
	END IF;
	RETURN QUERY SELECT s.kiosk, s.pack_serial, s.seq, s.sold_at, s.player, s.unit, s.revealed FROM sales s WHERE s.ticket = p_ticket;
END $$;

-- Every kiosk function waits at most 2 s for a lock: a kiosk holding a
-- transaction open costs another kiosk a refused call, never a hung one.
-- (A function's own statement_timeout would not bound the statement that
-- calls it: PostgreSQL arms that timer when the statement starts. It is set
-- on the kiosk's role instead, below.)
ALTER FUNCTION claim_pack(int) SET lock_timeout = '2s';
ALTER FUNCTION fetch_pack(text) SET lock_timeout = '2s';
ALTER FUNCTION push_sales(jsonb) SET lock_timeout = '2s';
ALTER FUNCTION push_movements(jsonb) SET lock_timeout = '2s';
ALTER FUNCTION release_pack(text, int) SET lock_timeout = '2s';
ALTER FUNCTION heartbeat(int) SET lock_timeout = '2s';
ALTER FUNCTION lookup_ticket(text) SET lock_timeout = '2s';
ALTER FUNCTION kiosk_state() SET lock_timeout = '2s';
ALTER FUNCTION fleet_view() SET lock_timeout = '2s';
ALTER FUNCTION kiosk_data_key() SET lock_timeout = '2s';

-- sf_kiosk_role_limits applies the settings' per-role limits to a kiosk's
-- login role: a connection limit (a kiosk opening connections in a loop
-- exhausts its own, not the server's), and the idle-in-transaction and
-- statement timeouts its sessions start with. Run by `central kiosk add`
-- and below for the kiosks that exist; run it again after changing the
-- settings. The role may still SET the two timeouts in its own session:
-- docs/fleet.md says what that leaves open.
CREATE FUNCTION sf_kiosk_role_limits(p_role name) RETURNS void LANGUAGE plpgsql AS $$
DECLARE st fleet_settings%ROWTYPE;
BEGIN
	SELECT * INTO st FROM fleet_settings;
	EXECUTE format('ALTER ROLE %I CONNECTION LIMIT %s', p_role, st.kiosk_connections);
	EXECUTE format('ALTER ROLE %I SET idle_in_transaction_session_timeout = %L', p_role,
		(extract(epoch FROM st.kiosk_idle_in_transaction) * 1000)::bigint::text);
	EXECUTE format('ALTER ROLE %I SET statement_timeout = %L', p_role, (extract(epoch FROM st.kiosk_statement_timeout) * 1000)::bigint::text);
END $$;
SELECT sf_kiosk_role_limits(role) FROM kiosks;

REVOKE ALL ON FUNCTION sf_cut_packs(bigint), sf_close_done(), sf_damm(text), sf_ticket(int, int, int, int), sf_kiosk_lock(), sf_push_bounds(jsonb),
	sf_conflicts_room(text), sf_kiosk_role_limits(name) FROM PUBLIC;
