-- What a pushed sale costs the central (make bench's fleet_block_s, #33).
--
-- 1. push_sales, as 0013 made it, but that each pushed row looks up the
-- sale the central holds at its block and position by one probe of that
-- block's partition's key (a LATERAL … LIMIT 1, which the planner neither
-- flattens into a join nor hashes, and prunes to the one partition as it
-- runs). Written as EXISTS in a CASE, the planner hashed every sale of the
-- kiosk in the block, and read the whole block's partition, to answer
-- 'duplicate' and 'position already sold', once per push, when its
-- estimates were a fresh partition's: a push cost the block's sales so
-- far, and one block sold by 20 kiosks took 424 s instead of 55 s.
--
-- 2. A sale's canonical ticket (sf_ticket) in 0.4 µs instead of 15: its
-- Damm check digit is a chain of lookups in the table (sf_damm_step, the
-- table as 100 bytes, row by row), which PostgreSQL inlines into the
-- query, where 0005's loop in PL/pgSQL parsed the table at each call.
-- sf_block_ref becomes STRICT, which it was in effect (any NULL made its
-- result NULL): a function that is not cannot be inlined into a strict one
-- (sf_ticket), so sf_ticket never was.
ALTER FUNCTION sf_block_ref(int, int, int) STRICT;
-- sf_damm_step is the Damm check digit's state after digit d from state i
-- (the quasigroup of order 10 engine/ticket.go uses, row i, column d).
CREATE FUNCTION sf_damm_step(i int, d int) RETURNS int LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
	SELECT get_byte('\x00030107050908060402070009020105040806030402000608070103050901070500090803040206060102030004050907080306070402000905080105080609070200010304080904050306020001070904030806010702000502050801040306070900'::bytea, i * 10 + d)
$$;
-- The canonical ticket of a position (engine.Ticket.String), as 0005's:
-- EE-SSS-BBBB-IIIIII-C, C the Damm check digit of the 15 digits before it,
-- taken here from the numbers, most significant digit first.
CREATE OR REPLACE FUNCTION sf_ticket(e int, s int, n int, pos int) RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
	SELECT sf_block_ref(e, s, n) || '-' || lpad(pos::text, 6, '0') || '-' || (
	       sf_damm_step(sf_damm_step(sf_damm_step(sf_damm_step(sf_damm_step(sf_damm_step(
	       sf_damm_step(sf_damm_step(sf_damm_step(sf_damm_step(
	       sf_damm_step(sf_damm_step(sf_damm_step(sf_damm_step(sf_damm_step(0,
	           e / 10 % 10), e % 10),
	           s / 100 % 10), s / 10 % 10), s % 10),
	           n / 1000 % 10), n / 100 % 10), n / 10 % 10), n % 10),
	           pos / 100000 % 10), pos / 10000 % 10), pos / 1000 % 10), pos / 100 % 10), pos / 10 % 10), pos % 10)
	       )::text
$$;

CREATE OR REPLACE FUNCTION sf_damm(digits text) RETURNS text LANGUAGE plpgsql IMMUTABLE STRICT AS $$
DECLARE
	i int := 0;
BEGIN
	FOR n IN 1..length(digits) LOOP
		i := sf_damm_step(i, ascii(substr(digits, n, 1)) - 48);
	END LOOP;
	RETURN i::text;
END $$;
REVOKE ALL ON FUNCTION sf_damm_step(int, int) FROM PUBLIC;

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
		       u.b_unit, held.ticket AS h_ticket, held.kiosk AS h_kiosk, held.seq AS h_seq, held.sold_at AS h_sold_at, held.player AS h_player,
		       -- The unit's prize: the first 8 bytes of its leaf tail (big-endian cents, engine/merkle.go).
		       ('x' || encode(substring(lt.tail FROM 1 FOR 8), 'hex'))::bit(64)::bigint AS b_prize
		  FROM jsonb_to_recordset(p) AS x(seq bigint, ticket text, pack text, position int, sold_at timestamptz,
		                                  player text, stake_cents bigint, prize_cents bigint, unit text, revealed boolean)
		  LEFT JOIN packs pk ON pk.serial = x.pack AND pk.kiosk = k
		  LEFT JOIN blocks bl ON bl.id = pk.block_id
		  LEFT JOIN LATERAL (SELECT substring(bl.units FROM x.position * 3 + 1 FOR 3) AS b_unit) u ON true
		  LEFT JOIN leaf_tails lt ON lt.stake_cents = bl.stake_cents AND lt.unit = u.b_unit
		  LEFT JOIN LATERAL (SELECT s.ticket, s.kiosk, s.seq, s.sold_at, s.player FROM sales s
		                      WHERE s.block_id = pk.block_id AND s.position = x.position LIMIT 1) held ON true
	), judged AS (
		SELECT inc.*, CASE
			WHEN inc.h_ticket = inc.ticket AND inc.h_kiosk = k AND inc.h_seq = inc.seq AND inc.h_sold_at = inc.sold_at AND inc.h_player = inc.player
				THEN 'duplicate'
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
			WHEN inc.h_ticket IS NOT NULL THEN 'position already sold'
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
