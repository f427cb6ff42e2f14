-- A push's rows as arrays, one per column, instead of a JSON array of
-- objects (#33, make bench's fleet_block_s). Of what a push of 1 000 sales
-- cost the central, a fifth was JSON: reading the text into jsonb, measuring
-- it again as text for its bound, and taking it apart three or four times
-- (jsonb_to_recordset); the kiosk wrote it with encoding/json. The pgx client
-- sends arrays in PostgreSQL's binary form, which the functions below read
-- with unnest.
--
-- The judging is 0016's push_sales and 0015's push_movements, unchanged but
-- for where the rows come from: a unit is bytea (its three bytes), compared
-- with the block's as such, and kept in a conflict's record as hex as
-- before. The JSON functions stay, for kiosks of before this migration:
-- they turn their JSON into the arrays and call these, so that one body
-- judges both (a unit that is not hex becomes NULL there, which differs
-- from the block's: refused as before, its text no longer kept).
--
-- A sale numbered above the last the central has of the kiosk looks up
-- neither the sale at its position nor a stored conflict: every sale and
-- conflict stored has a number up to that last (each push raises it to its
-- highest), so neither can be a duplicate, and a position sold already is
-- refused by the insert (ON CONFLICT, then 'position already sold'), as it
-- was by the look-up. The numbers pushed again after a lost answer are
-- looked up as before. (5 % of a push of 1 000 new sales.)
--
-- Without JIT: the first five calls of a session plan for their arrays as
-- given, which the planner counts exactly, and a push of 1 000 rows then
-- costs more than jit_above_cost: compiling it took 77 ms of a 90 ms push
-- of movements (the later, generic plans count 10 rows and do not
-- compile). A push is a thousand rows of probes: nothing to compile for.

-- sf_push_bounds refuses a push whose columns are not all n rows long, or
-- of more rows or bytes than the settings allow, before any of it is
-- looked at.
CREATE FUNCTION sf_push_bounds(n int, lengths int[], bytes bigint) RETURNS void LANGUAGE plpgsql AS $$
DECLARE st fleet_settings%ROWTYPE;
BEGIN
	SELECT * INTO st FROM fleet_settings;
	IF EXISTS (SELECT 1 FROM unnest(lengths) l WHERE coalesce(l, 0) <> n) THEN
		RAISE EXCEPTION 'a push''s columns are not all % rows long', n USING ERRCODE = 'SF009';
	END IF;
	IF n > st.push_max_rows OR bytes > st.push_max_bytes THEN
		RAISE EXCEPTION 'a push carries at most % rows and % bytes', st.push_max_rows, st.push_max_bytes USING ERRCODE = 'SF009';
	END IF;
END $$;

-- sf_push_sequence checks a push's numbers (sales' or movements', what)
-- against the last the central has of kiosk k: the new ones follow it
-- without a gap and none comes twice (SF002). It returns the highest new
-- one (NULL: none).
CREATE FUNCTION sf_push_sequence(k text, what text, seqs bigint[], v_last bigint) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE lo bigint; hi bigint; n bigint; v_rows bigint;
BEGIN
	SELECT min(x.seq), max(x.seq), count(DISTINCT x.seq), count(*) INTO lo, hi, n, v_rows
	  FROM unnest(seqs) AS x(seq) WHERE x.seq > v_last;
	IF n > 0 AND (lo <> v_last + 1 OR hi - lo + 1 <> n) THEN
		RAISE EXCEPTION 'kiosk % pushed % % to %, the central has up to %', k, what, lo, hi, v_last USING ERRCODE = 'SF002';
	END IF;
	IF v_rows <> n THEN
		RAISE EXCEPTION 'kiosk % pushed two % under one number', k, what USING ERRCODE = 'SF002';
	END IF;
	RETURN hi;
END $$;

-- sf_unhex is the bytes of hex text, NULL when it is not hex.
CREATE FUNCTION sf_unhex(t text) RETURNS bytea LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
	SELECT CASE WHEN t ~ '^([0-9a-fA-F]{2})*$' THEN decode(t, 'hex') END
$$;

CREATE FUNCTION push_sales(p_seq bigint[], p_ticket text[], p_pack text[], p_position int[], p_sold_at timestamptz[], p_player text[],
                           p_stake bigint[], p_prize bigint[], p_unit bytea[], p_revealed boolean[])
RETURNS TABLE (applied bigint, duplicates bigint, conflicts bigint, last_seq bigint)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp SET lock_timeout = '2s' SET jit = off AS $$
#variable_conflict use_column
DECLARE
	k text := sf_kiosk_lock();
	st fleet_settings%ROWTYPE;
	v_last bigint; hi bigint;
	v_app bigint; v_dup bigint; v_conf bigint; v_room bigint;
	bid bigint;
BEGIN
	PERFORM sf_push_bounds(coalesce(cardinality(p_seq), 0),
		ARRAY[cardinality(p_ticket), cardinality(p_pack), cardinality(p_position), cardinality(p_sold_at), cardinality(p_player),
		      cardinality(p_stake), cardinality(p_prize), cardinality(p_unit), cardinality(p_revealed)],
		coalesce(pg_column_size(p_seq), 0)::bigint + pg_column_size(p_ticket) + pg_column_size(p_pack) + pg_column_size(p_position)
		+ pg_column_size(p_sold_at) + pg_column_size(p_player) + pg_column_size(p_stake) + pg_column_size(p_prize)
		+ pg_column_size(p_unit) + pg_column_size(p_revealed));
	SELECT * INTO st FROM fleet_settings;
	SELECT kk.last_sale_seq INTO v_last FROM kiosks kk WHERE kk.id = k;
	hi := sf_push_sequence(k, 'sales', p_seq, v_last);
	v_room := sf_conflicts_room(k);
	-- A void (which locks its pack for update) waits for this push, and the
	-- other way round, so a pack's sold and voided units never overlap.
	-- Only this kiosk's own packs: another kiosk's serial in a push is a
	-- conflict, never a lock on that kiosk's pack.
	PERFORM 1 FROM packs WHERE serial IN (SELECT x.pack FROM unnest(p_pack) AS x(pack)) AND kiosk = k
	 ORDER BY serial FOR NO KEY UPDATE;
	WITH inc AS (
		SELECT x.*, pk.block_id, pk.first AS p_first, pk.count AS p_count, pk.kiosk AS p_kiosk, pk.status AS p_status,
		       pk.claimed_at AS p_claimed, bl.stake_cents AS b_stake,
		       sf_ticket(bl.emission, bl.stake_cents, bl.number, x.position) AS canon,
		       u.b_unit, held.ticket AS h_ticket, held.kiosk AS h_kiosk, held.seq AS h_seq, held.sold_at AS h_sold_at, held.player AS h_player,
		       -- The unit's prize: the first 8 bytes of its leaf tail (big-endian cents, engine/merkle.go).
		       ('x' || encode(substring(lt.tail FROM 1 FOR 8), 'hex'))::bit(64)::bigint AS b_prize
		  FROM unnest(p_seq, p_ticket, p_pack, p_position, p_sold_at, p_player, p_stake, p_prize, p_unit, p_revealed)
		       AS x(seq, ticket, pack, position, sold_at, player, stake_cents, prize_cents, unit, revealed)
		  LEFT JOIN packs pk ON pk.serial = x.pack AND pk.kiosk = k
		  LEFT JOIN blocks bl ON bl.id = pk.block_id
		  LEFT JOIN LATERAL (SELECT substring(bl.units FROM x.position * 3 + 1 FOR 3) AS b_unit) u ON true
		  LEFT JOIN LATERAL (SELECT t.tail FROM leaf_tails t WHERE t.stake_cents = bl.stake_cents AND t.unit = u.b_unit LIMIT 1) lt ON true
		  LEFT JOIN LATERAL (SELECT s.ticket, s.kiosk, s.seq, s.sold_at, s.player FROM sales s
		                      WHERE x.seq <= v_last AND s.block_id = pk.block_id AND s.position = x.position LIMIT 1) held ON true
	), judged AS (
		SELECT inc.*, CASE
			WHEN inc.h_ticket = inc.ticket AND inc.h_kiosk = k AND inc.h_seq = inc.seq AND inc.h_sold_at = inc.sold_at AND inc.h_player = inc.player
				THEN 'duplicate'
			WHEN inc.seq <= v_last AND EXISTS (SELECT 1 FROM sale_conflicts c WHERE c.kiosk = k AND c.seq = inc.seq AND c.ticket = inc.ticket) THEN 'duplicate'
			WHEN inc.seq <= v_last THEN 'sequence number already used by another sale'
			WHEN inc.block_id IS NULL THEN 'pack not held by this kiosk'
			WHEN inc.p_status = 'voided' THEN 'pack voided'
			WHEN inc.position < inc.p_first OR inc.position >= inc.p_first + inc.p_count THEN 'position outside the pack'
			WHEN inc.ticket IS DISTINCT FROM inc.canon THEN 'ticket is not the position''s (check digit included)'
			WHEN inc.stake_cents IS DISTINCT FROM inc.b_stake THEN 'stake differs from the block'
			WHEN inc.unit IS DISTINCT FROM inc.b_unit THEN 'unit differs from the block''s'
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
		                          'stake_cents', j.stake_cents, 'prize_cents', j.prize_cents, 'unit', encode(j.unit, 'hex'))
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
	FOR bid IN SELECT DISTINCT pk.block_id FROM unnest(p_pack) AS x(pack) JOIN packs pk ON pk.serial = x.pack AND pk.kiosk = k LOOP
		PERFORM sf_close_if_done(bid);
	END LOOP;
	RETURN QUERY SELECT v_app, v_dup, v_conf, greatest(v_last, coalesce(hi, 0));
END $$;

CREATE OR REPLACE FUNCTION push_sales(p jsonb)
RETURNS TABLE (applied bigint, duplicates bigint, conflicts bigint, last_seq bigint)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp SET lock_timeout = '2s' AS $$
BEGIN
	PERFORM sf_push_bounds(p);
	RETURN QUERY SELECT r.* FROM (
		SELECT array_agg(x.seq) AS seq, array_agg(x.ticket) AS ticket, array_agg(x.pack) AS pack, array_agg(x.position) AS pos,
		       array_agg(x.sold_at) AS sold_at, array_agg(x.player) AS player, array_agg(x.stake_cents) AS stake,
		       array_agg(x.prize_cents) AS prize, array_agg(sf_unhex(x.unit)) AS unit, array_agg(x.revealed) AS revealed
		  FROM jsonb_to_recordset(p) AS x(seq bigint, ticket text, pack text, position int, sold_at timestamptz,
		                                  player text, stake_cents bigint, prize_cents bigint, unit text, revealed boolean)) a,
		LATERAL push_sales(a.seq, a.ticket, a.pack, a.pos, a.sold_at, a.player, a.stake, a.prize, a.unit, a.revealed) r;
END $$;

CREATE FUNCTION push_movements(p_seq bigint[], p_id text[], p_player text[], p_kind text[], p_debit bigint[], p_credit bigint[],
                               p_ticket text[], p_at timestamptz[], p_lease bigint[], p_hand jsonb[])
RETURNS TABLE (applied bigint, duplicates bigint, conflicts bigint, last_seq bigint)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp SET lock_timeout = '2s' SET jit = off AS $$
#variable_conflict use_column
DECLARE
	k text := sf_kiosk_lock();
	st fleet_settings%ROWTYPE;
	v_last bigint; hi bigint;
	v_app bigint; v_dup bigint; v_conf bigint; v_room bigint;
BEGIN
	PERFORM sf_push_bounds(coalesce(cardinality(p_seq), 0),
		ARRAY[cardinality(p_id), cardinality(p_player), cardinality(p_kind), cardinality(p_debit), cardinality(p_credit),
		      cardinality(p_ticket), cardinality(p_at), cardinality(p_lease), cardinality(p_hand)],
		coalesce(pg_column_size(p_seq), 0)::bigint + pg_column_size(p_id) + pg_column_size(p_player) + pg_column_size(p_kind)
		+ pg_column_size(p_debit) + pg_column_size(p_credit) + coalesce(pg_column_size(p_ticket), 0) + pg_column_size(p_at)
		+ pg_column_size(p_lease) + coalesce(pg_column_size(p_hand), 0));
	PERFORM sf_movements_ahead();
	SELECT * INTO st FROM fleet_settings;
	SELECT kk.last_movement_seq INTO v_last FROM kiosks kk WHERE kk.id = k;
	hi := sf_push_sequence(k, 'movements', p_seq, v_last);
	v_room := sf_conflicts_room(k);
	WITH judged0 AS ( -- 0007's verdicts, and an id used already
		SELECT x.*, CASE
			WHEN held.seq = x.seq THEN 'duplicate'
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
			WHEN coalesce(x.lease, 0) <> 0 AND le.id IS NULL THEN 'lease not held by this kiosk for this player'
			WHEN held.seq IS NOT NULL THEN 'movement id already used'
		END AS verdict
		FROM unnest(p_seq, p_id, p_player, p_kind, p_debit, p_credit, p_ticket, p_at, p_lease, p_hand)
		     AS x(seq, id, player, kind, debit_cents, credit_cents, ticket, at, lease, hand)
		LEFT JOIN LATERAL (SELECT m.seq FROM movements m WHERE m.kiosk = k AND m.id = x.id ORDER BY m.seq = x.seq DESC LIMIT 1) held ON true
		LEFT JOIN LATERAL (SELECT l.id FROM leases l WHERE l.id = x.lease AND l.kiosk = k AND l.player = x.player LIMIT 1) le ON true
	), judged1 AS ( -- an id used earlier in the push
		SELECT j.seq, j.id, j.player, j.kind, j.debit_cents, j.credit_cents, j.ticket, j.at, j.lease, j.hand,
		       coalesce(j.verdict, CASE WHEN count(*) FILTER (WHERE j.verdict IS NULL) OVER (PARTITION BY j.id ORDER BY j.seq) > 1
		                                THEN 'movement id already used' END) AS verdict
		FROM judged0 j
	), paid AS ( -- a hand pay's verdicts, but for a second one in the push
		SELECT j.*, coalesce(j.verdict, CASE
			WHEN j.hand IS NULL THEN NULL
			WHEN j.kind <> 'payout' THEN 'a hand pay on a movement that is not a payout'
			WHEN coalesce(btrim(j.hand ->> 'document'), '') = '' OR coalesce(btrim(j.hand ->> 'method'), '') = ''
				THEN 'a hand pay without the document seen or the method'
			WHEN j.debit_cents < st.handpay_threshold_cents THEN 'a hand pay below the hand-pay threshold'
			WHEN NOT EXISTS (SELECT 1 FROM sales s WHERE s.ticket = j.ticket AND s.kiosk = k AND s.player = j.player AND s.prize_cents = j.debit_cents)
			  OR NOT EXISTS (SELECT 1 FROM movements m WHERE m.kiosk = k AND m.kind = 'sale' AND m.ticket = j.ticket AND m.player = j.player
			                                           AND m.credit_cents = j.debit_cents
			                 UNION ALL
			                 SELECT 1 FROM judged1 y WHERE y.verdict IS NULL AND y.kind = 'sale' AND y.ticket = j.ticket AND y.player = j.player
			                                           AND y.credit_cents = j.debit_cents)
				THEN 'a hand pay that is not the payout of a prize this kiosk sold to this player'
			WHEN EXISTS (SELECT 1 FROM hand_pays h WHERE h.ticket = j.ticket) THEN 'a prize paid by hand twice'
		END) AS paid_verdict
		FROM judged1 j
	), judged AS (
		SELECT j.seq, j.id, j.player, j.kind, j.debit_cents, j.credit_cents, j.ticket, j.at, j.lease, j.hand,
		       coalesce(j.paid_verdict, CASE WHEN j.hand IS NOT NULL AND count(*) FILTER (WHERE j.paid_verdict IS NULL AND j.hand IS NOT NULL)
		                                                                  OVER (PARTITION BY j.ticket ORDER BY j.seq) > 1
		                                     THEN 'a prize paid by hand twice' END) AS verdict
		FROM paid j
	), ins AS (
		INSERT INTO movements (kiosk, id, seq, player, kind, debit_cents, credit_cents, ticket, at, lease_id)
		SELECT k, j.id, j.seq, j.player, j.kind, j.debit_cents, j.credit_cents, j.ticket, j.at, nullif(j.lease, 0)
		  FROM judged j WHERE j.verdict IS NULL
		RETURNING id
	), hands AS (
		INSERT INTO hand_pays (kiosk, movement, player, ticket, prize_cents, document, checked_by, paid_by, method, reference, at)
		SELECT k, j.id, j.player, j.ticket, j.debit_cents, j.hand ->> 'document', coalesce(j.hand ->> 'checked_by', ''),
		       coalesce(j.hand ->> 'paid_by', ''), j.hand ->> 'method', coalesce(j.hand ->> 'reference', ''), j.at
		  FROM judged j
		 WHERE j.verdict IS NULL AND j.hand IS NOT NULL
	), refused AS (
		SELECT j.* FROM judged j WHERE j.verdict IS NOT NULL AND j.verdict <> 'duplicate'
	), conf AS (
		INSERT INTO movement_conflicts (kiosk, seq, reason, movement)
		SELECT k, j.seq, j.verdict, to_jsonb(j) - 'verdict'
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

CREATE OR REPLACE FUNCTION push_movements(p jsonb)
RETURNS TABLE (applied bigint, duplicates bigint, conflicts bigint, last_seq bigint)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp SET lock_timeout = '2s' AS $$
BEGIN
	PERFORM sf_push_bounds(p);
	RETURN QUERY SELECT r.* FROM (
		SELECT array_agg(x.seq) AS seq, array_agg(x.id) AS id, array_agg(x.player) AS player, array_agg(x.kind) AS kind,
		       array_agg(x.debit_cents) AS debit, array_agg(x.credit_cents) AS credit, array_agg(x.ticket) AS ticket,
		       array_agg(x.at) AS at, array_agg(x.lease) AS lease, array_agg(x.hand) AS hand
		  FROM jsonb_to_recordset(p) AS x(seq bigint, id text, player text, kind text, debit_cents bigint,
		                                  credit_cents bigint, ticket text, at timestamptz, lease bigint, hand jsonb)) a,
		LATERAL push_movements(a.seq, a.id, a.player, a.kind, a.debit, a.credit, a.ticket, a.at, a.lease, a.hand) r;
END $$;

REVOKE ALL ON FUNCTION sf_push_bounds(int, int[], bigint), sf_push_sequence(text, text, bigint[], bigint), sf_unhex(text),
	push_sales(bigint[], text[], text[], int[], timestamptz[], text[], bigint[], bigint[], bytea[], boolean[]),
	push_movements(bigint[], text[], text[], text[], bigint[], bigint[], text[], timestamptz[], bigint[], jsonb[]) FROM PUBLIC;
DO $$
BEGIN
	EXECUTE format('GRANT EXECUTE ON FUNCTION '
		'push_sales(bigint[], text[], text[], int[], timestamptz[], text[], bigint[], bigint[], bytea[], boolean[]), '
		'push_movements(bigint[], text[], text[], text[], bigint[], bigint[], text[], timestamptz[], bigint[], jsonb[]) TO %I',
		current_database() || '_kiosk');
END $$;
