-- What a kiosk may do, and nothing else: each kiosk logs in with its own
-- role (`central kiosk add`), member of the group role <database>_kiosk,
-- whose only rights are CONNECT and EXECUTE on the SECURITY DEFINER
-- functions below. They run as the owner, identify the kiosk by
-- session_user, and touch only that kiosk's rows. Errors carry SQLSTATEs the
-- Go adapter maps to engine errors:
--   SF001 no unit left at this stake     SF002 pushed sequence has a gap
--   SF003 the block is closed            SF004 the role is not a kiosk
--   SF005 the pack's state forbids it

DO $$
DECLARE g text := current_database() || '_kiosk';
BEGIN
	IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = g) THEN
		EXECUTE format('CREATE ROLE %I NOLOGIN', g);
	END IF;
	EXECUTE format('REVOKE ALL ON DATABASE %I FROM PUBLIC', current_database());
	EXECUTE format('GRANT CONNECT ON DATABASE %I TO %I', current_database(), g);
END $$;
REVOKE CREATE ON SCHEMA public FROM PUBLIC;

CREATE FUNCTION sf_block_ref(e int, s int, n int) RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT lpad(e::text, 2, '0') || '-' || lpad(s::text, 3, '0') || '-' || lpad(n::text, 4, '0')
$$;

CREATE FUNCTION sf_kiosk() RETURNS text LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE k text;
BEGIN
	SELECT id INTO k FROM kiosks WHERE role = session_user;
	IF k IS NULL THEN
		RAISE EXCEPTION 'role % is not a kiosk of this central', session_user USING ERRCODE = 'SF004';
	END IF;
	RETURN k;
END $$;

-- The leaf hash of a block's unit (engine/merkle.go): its salt, block and
-- position, then the tail leaf_tails holds for its 3-byte encoding.
CREATE FUNCTION sf_leaf(b bigint, pos bigint) RETURNS bytea LANGUAGE sql STABLE AS $$
	SELECT digest('\x00'::bytea || digest(s.seed || int4send(pos::int), 'sha256') || int2send(bl.emission::int2)
	              || int2send(bl.stake_cents::int2) || int4send(bl.number) || int4send(pos::int) || t.tail, 'sha256')
	  FROM blocks bl
	  JOIN block_seeds s ON s.block_id = bl.id
	  JOIN leaf_tails t ON t.stake_cents = bl.stake_cents AND t.unit = substring(bl.units FROM (pos * 3 + 1)::int FOR 3)
	 WHERE bl.id = b
$$;

-- The hash of node (level, index) of a block's tree: read from block_levels
-- from level 4 up, hashed from the leaves below (at most 16 leaves: a range
-- proof needs at most two nodes per level).
CREATE FUNCTION sf_node(b bigint, lv int, idx bigint) RETURNS bytea LANGUAGE plpgsql STABLE AS $$
DECLARE h bytea;
BEGIN
	IF lv = 0 THEN
		h := sf_leaf(b, idx);
	ELSIF lv < 4 THEN
		h := digest('\x01'::bytea || sf_node(b, lv - 1, 2 * idx) || sf_node(b, lv - 1, 2 * idx + 1), 'sha256');
	ELSE
		SELECT substring(hashes FROM (idx * 32 + 1)::int FOR 32) INTO h FROM block_levels WHERE block_id = b AND level = lv;
	END IF;
	IF h IS NULL OR length(h) <> 32 THEN
		RAISE EXCEPTION 'block % has no Merkle node (%, %)', b, lv, idx;
	END IF;
	RETURN h;
END $$;

-- Closes the block when every position is sold or voided, revealing its seed.
CREATE FUNCTION sf_close_if_done(b bigint) RETURNS void LANGUAGE sql AS $$
	UPDATE blocks bl SET closed_at = now(), seed = (SELECT seed FROM block_seeds WHERE block_id = bl.id)
	  FROM block_cursors c
	 WHERE c.block_id = bl.id AND bl.id = b AND bl.closed_at IS NULL AND c.sold + c.voided = c.size
$$;

-- sf_pack_payload is what a kiosk receives for one of its packs: the
-- units, their salts (SHA-256(seed || position u32 BE), engine/merkle.go)
-- and the range proof's hashes: the compact range of [0, first) largest
-- first, then the aligned subtrees of [first+count, size) left to right.
CREATE FUNCTION sf_pack_payload(p_serial text)
RETURNS TABLE (serial text, emission int, stake_cents int, number int, size int, first int, count int,
               units bytea, salts bytea, proof bytea, root bytea)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
	pk packs%ROWTYPE;
	v_em int; v_stake int; v_num int; v_size int; v_root bytea;
	v_proof bytea := ''::bytea;
	v_salts bytea;
	pos bigint := 0;
	e bigint;
	lv int;
BEGIN
	SELECT * INTO STRICT pk FROM packs WHERE packs.serial = p_serial;
	SELECT bl.emission, bl.stake_cents, bl.number, bl.size, bl.root INTO v_em, v_stake, v_num, v_size, v_root
	  FROM blocks bl WHERE bl.id = pk.block_id;
	FOR lv IN REVERSE 30..0 LOOP
		IF (pk.first::bigint >> lv) & 1 = 1 THEN
			v_proof := v_proof || sf_node(pk.block_id, lv, pos >> lv);
			pos := pos + (1::bigint << lv);
		END IF;
	END LOOP;
	e := pk.first + pk.count;
	WHILE e < v_size LOOP
		lv := 0;
		WHILE lv < 30 AND (e >> lv) & 1 = 0 LOOP lv := lv + 1; END LOOP;
		WHILE e + (1::bigint << lv) > v_size LOOP lv := lv - 1; END LOOP;
		v_proof := v_proof || sf_node(pk.block_id, lv, e >> lv);
		e := e + (1::bigint << lv);
	END LOOP;
	SELECT string_agg(digest(bs.seed || int4send(i), 'sha256'), ''::bytea ORDER BY i) INTO v_salts
	  FROM block_seeds bs, generate_series(pk.first, pk.first + pk.count - 1) AS i
	 WHERE bs.block_id = pk.block_id;
	RETURN QUERY SELECT pk.serial, v_em, v_stake, v_num, v_size, pk.first, pk.count,
		(SELECT substring(bl.units FROM pk.first * 3 + 1 FOR pk.count * 3) FROM blocks bl WHERE bl.id = pk.block_id),
		v_salts, v_proof, v_root;
END $$;

-- claim_pack hands this kiosk a pack at the stake: a released remainder
-- first, else the next positions of the lowest open block, cut by one
-- UPDATE … RETURNING of the block's cursor row (last_first keeps the old
-- position in the same statement).
CREATE FUNCTION claim_pack(p_stake int)
RETURNS TABLE (serial text, emission int, stake_cents int, number int, size int, first int, count int,
               units bytea, salts bytea, proof bytea, root bytea)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
#variable_conflict use_column
DECLARE
	k text := sf_kiosk();
	pk packs%ROWTYPE;
	c block_cursors%ROWTYPE;
	v_em int; v_stake int; v_num int;
BEGIN
	UPDATE packs a SET kiosk = k, status = 'claimed', claimed_at = now()
	 WHERE a.serial = (SELECT x.serial FROM packs x JOIN blocks y ON y.id = x.block_id
	                    WHERE x.status = 'available' AND y.stake_cents = p_stake
	                    ORDER BY y.emission, y.number, x.first LIMIT 1 FOR UPDATE OF x SKIP LOCKED)
	RETURNING a.* INTO pk;
	IF NOT FOUND THEN
		LOOP
			UPDATE block_cursors bc SET last_first = bc.next, next = least(bc.next + bc.pack_size, bc.size), packs = bc.packs + 1
			 WHERE bc.block_id = (SELECT x.block_id FROM block_cursors x JOIN blocks y ON y.id = x.block_id
			                       WHERE y.stake_cents = p_stake AND x.next < x.size
			                       ORDER BY y.emission, y.number LIMIT 1)
			   AND bc.next < bc.size
			RETURNING bc.* INTO c;
			EXIT WHEN FOUND;
			PERFORM 1 FROM block_cursors x JOIN blocks y ON y.id = x.block_id WHERE y.stake_cents = p_stake AND x.next < x.size;
			IF NOT FOUND THEN
				RAISE EXCEPTION 'no unit left to hand out at a stake of % cents', p_stake USING ERRCODE = 'SF001';
			END IF;
		END LOOP;
		SELECT bl.emission, bl.stake_cents, bl.number INTO v_em, v_stake, v_num FROM blocks bl WHERE bl.id = c.block_id;
		INSERT INTO packs (serial, block_id, first, count, kiosk, status, claimed_at)
		VALUES (sf_block_ref(v_em, v_stake, v_num) || '-P' || lpad(c.packs::text, 5, '0'), c.block_id,
		        c.last_first, c.next - c.last_first, k, 'claimed', now())
		RETURNING * INTO pk;
	END IF;
	RETURN QUERY SELECT * FROM sf_pack_payload(pk.serial);
END $$;

-- fetch_pack sends again one of this kiosk's packs (the part it keeps):
-- after a claim whose answer was lost (kiosk_state lists the pack), or to a
-- kiosk restored from a backup.
CREATE FUNCTION fetch_pack(p_serial text)
RETURNS TABLE (serial text, emission int, stake_cents int, number int, size int, first int, count int,
               units bytea, salts bytea, proof bytea, root bytea)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
#variable_conflict use_column
DECLARE k text := sf_kiosk();
BEGIN
	PERFORM 1 FROM packs WHERE packs.serial = p_serial AND packs.kiosk = k AND packs.status IN ('claimed', 'returned');
	IF NOT FOUND THEN
		RAISE EXCEPTION 'pack % is not held by kiosk %', p_serial, k USING ERRCODE = 'SF005';
	END IF;
	RETURN QUERY SELECT * FROM sf_pack_payload(p_serial);
END $$;

-- push_sales applies a batch of this kiosk's sales (a JSON array, see
-- central/client.go) in one statement: a row the central already holds
-- identically, or already refused, is a duplicate (a re-push), a row that cannot be a sale of
-- this kiosk (another kiosk's pack, a voided pack, a position already
-- sold…) is kept in sale_conflicts for the audit and never merged.
CREATE FUNCTION push_sales(p jsonb)
RETURNS TABLE (applied bigint, duplicates bigint, conflicts bigint, last_seq bigint)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
#variable_conflict use_column
DECLARE
	k text := sf_kiosk();
	v_last bigint; lo bigint; hi bigint; n bigint;
	v_app bigint; v_dup bigint; v_conf bigint;
	bid bigint;
BEGIN
	SELECT kk.last_sale_seq INTO v_last FROM kiosks kk WHERE kk.id = k FOR UPDATE;
	SELECT min(x.seq), max(x.seq), count(DISTINCT x.seq) INTO lo, hi, n
	  FROM jsonb_to_recordset(p) AS x(seq bigint) WHERE x.seq > v_last;
	IF n > 0 AND (lo <> v_last + 1 OR hi - lo + 1 <> n) THEN
		RAISE EXCEPTION 'kiosk % pushed sales % to %, the central has up to %', k, lo, hi, v_last USING ERRCODE = 'SF002';
	END IF;
	-- A void (which locks its pack for update) waits for this push, and the
	-- other way round, so the block's sold and voided counts never overlap.
	PERFORM 1 FROM packs WHERE serial IN (SELECT x.pack FROM jsonb_to_recordset(p) AS x(pack text)) ORDER BY serial FOR SHARE;
	WITH inc AS (
		SELECT x.*, pk.block_id, pk.first AS p_first, pk.count AS p_count, pk.kiosk AS p_kiosk, pk.status AS p_status,
		       bl.stake_cents AS b_stake, sf_block_ref(bl.emission, bl.stake_cents, bl.number) AS ref
		  FROM jsonb_to_recordset(p) AS x(seq bigint, ticket text, pack text, position int, sold_at timestamptz,
		                                  player text, stake_cents bigint, prize_cents bigint, unit text, revealed boolean)
		  LEFT JOIN packs pk ON pk.serial = x.pack
		  LEFT JOIN blocks bl ON bl.id = pk.block_id
	), judged AS (
		SELECT inc.*, CASE
			WHEN EXISTS (SELECT 1 FROM sales s WHERE s.ticket = inc.ticket AND s.kiosk = k AND s.seq = inc.seq
			             AND s.sold_at = inc.sold_at AND s.player = inc.player) THEN 'duplicate'
			WHEN EXISTS (SELECT 1 FROM sale_conflicts c WHERE c.kiosk = k AND c.seq = inc.seq AND c.ticket = inc.ticket) THEN 'duplicate'
			WHEN inc.seq <= v_last THEN 'sequence number already used by another sale'
			WHEN inc.block_id IS NULL THEN 'unknown pack'
			WHEN inc.p_kiosk IS DISTINCT FROM k THEN 'pack not held by this kiosk'
			WHEN inc.p_status = 'voided' THEN 'pack voided'
			WHEN inc.position < inc.p_first OR inc.position >= inc.p_first + inc.p_count THEN 'position outside the pack'
			WHEN left(inc.ticket, 18) <> inc.ref || '-' || lpad(inc.position::text, 6, '0') THEN 'ticket does not name the position'
			WHEN inc.stake_cents <> inc.b_stake THEN 'stake differs from the block'
			WHEN EXISTS (SELECT 1 FROM sales s WHERE s.ticket = inc.ticket) THEN 'position already sold'
		END AS verdict
		FROM inc
	), ins AS (
		INSERT INTO sales (ticket, block_id, position, pack_serial, kiosk, seq, sold_at, player, stake_cents, prize_cents, unit, revealed)
		SELECT j.ticket, j.block_id, j.position, j.pack, k, j.seq, j.sold_at, j.player, j.stake_cents, j.prize_cents,
		       decode(j.unit, 'hex'), j.revealed
		  FROM judged j WHERE j.verdict IS NULL
		ON CONFLICT DO NOTHING
		RETURNING ticket, block_id
	), conf AS (
		INSERT INTO sale_conflicts (kiosk, seq, ticket, reason, sale)
		SELECT k, j.seq, j.ticket, coalesce(j.verdict, 'position already sold'),
		       jsonb_build_object('pack', j.pack, 'position', j.position, 'sold_at', j.sold_at, 'player', j.player,
		                          'stake_cents', j.stake_cents, 'prize_cents', j.prize_cents, 'unit', j.unit)
		  FROM judged j
		 WHERE j.verdict IS DISTINCT FROM 'duplicate' AND (j.verdict IS NOT NULL OR j.ticket NOT IN (SELECT ins.ticket FROM ins))
		ON CONFLICT DO NOTHING
		RETURNING 1
	), counted AS (
		UPDATE block_cursors bc SET sold = bc.sold + x.n
		  FROM (SELECT ins.block_id, count(*) AS n FROM ins GROUP BY ins.block_id) x
		 WHERE bc.block_id = x.block_id
		RETURNING bc.block_id
	)
	SELECT (SELECT count(*) FROM ins), (SELECT count(*) FROM judged WHERE verdict = 'duplicate'), (SELECT count(*) FROM conf)
	  INTO v_app, v_dup, v_conf;
	UPDATE kiosks kk SET last_sale_seq = greatest(kk.last_sale_seq, coalesce(hi, 0)), last_seen = now() WHERE kk.id = k;
	FOR bid IN SELECT DISTINCT pk.block_id FROM jsonb_to_recordset(p) AS x(pack text) JOIN packs pk ON pk.serial = x.pack LOOP
		PERFORM sf_close_if_done(bid);
	END LOOP;
	RETURN QUERY SELECT v_app, v_dup, v_conf, greatest(v_last, coalesce(hi, 0));
END $$;

-- push_movements applies a batch of this kiosk's ledger movements, as
-- push_sales does its sales.
CREATE FUNCTION push_movements(p jsonb)
RETURNS TABLE (applied bigint, duplicates bigint, conflicts bigint, last_seq bigint)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
#variable_conflict use_column
DECLARE
	k text := sf_kiosk();
	v_last bigint; lo bigint; hi bigint; n bigint;
	v_app bigint; v_dup bigint; v_conf bigint;
BEGIN
	SELECT kk.last_movement_seq INTO v_last FROM kiosks kk WHERE kk.id = k FOR UPDATE;
	SELECT min(x.seq), max(x.seq), count(DISTINCT x.seq) INTO lo, hi, n
	  FROM jsonb_to_recordset(p) AS x(seq bigint) WHERE x.seq > v_last;
	IF n > 0 AND (lo <> v_last + 1 OR hi - lo + 1 <> n) THEN
		RAISE EXCEPTION 'kiosk % pushed movements % to %, the central has up to %', k, lo, hi, v_last USING ERRCODE = 'SF002';
	END IF;
	WITH judged AS (
		SELECT x.*, CASE
			WHEN EXISTS (SELECT 1 FROM movements m WHERE m.kiosk = k AND m.id = x.id AND m.seq = x.seq) THEN 'duplicate'
			WHEN EXISTS (SELECT 1 FROM movement_conflicts c WHERE c.kiosk = k AND c.seq = x.seq) THEN 'duplicate'
			WHEN x.seq <= v_last THEN 'sequence number already used by another movement'
			WHEN x.kind NOT IN ('grant', 'credit', 'payout', 'sale') THEN 'unknown kind'
		END AS verdict
		FROM jsonb_to_recordset(p) AS x(seq bigint, id text, player text, kind text, debit_cents bigint,
		                                credit_cents bigint, ticket text, at timestamptz)
	), ins AS (
		INSERT INTO movements (kiosk, id, seq, player, kind, debit_cents, credit_cents, ticket, at)
		SELECT k, j.id, j.seq, j.player, j.kind, j.debit_cents, j.credit_cents, j.ticket, j.at FROM judged j WHERE j.verdict IS NULL
		ON CONFLICT DO NOTHING
		RETURNING id
	), conf AS (
		INSERT INTO movement_conflicts (kiosk, seq, reason, movement)
		SELECT k, j.seq, coalesce(j.verdict, 'movement id already used'), to_jsonb(j) - 'verdict'
		  FROM judged j
		 WHERE j.verdict IS DISTINCT FROM 'duplicate' AND (j.verdict IS NOT NULL OR j.id NOT IN (SELECT ins.id FROM ins))
		ON CONFLICT DO NOTHING
		RETURNING 1
	)
	SELECT (SELECT count(*) FROM ins), (SELECT count(*) FROM judged WHERE verdict = 'duplicate'), (SELECT count(*) FROM conf)
	  INTO v_app, v_dup, v_conf;
	UPDATE kiosks kk SET last_movement_seq = greatest(kk.last_movement_seq, coalesce(hi, 0)), last_seen = now() WHERE kk.id = k;
	RETURN QUERY SELECT v_app, v_dup, v_conf, greatest(v_last, coalesce(hi, 0));
END $$;

-- release_pack returns the unsold remainder [p_from, end) of a pack this
-- kiosk holds: the pack is cut to [first, p_from) and the remainder becomes
-- a new available pack ('' when nothing remained; the pack's own serial
-- when none of it was sold).
CREATE FUNCTION release_pack(p_serial text, p_from int) RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
#variable_conflict use_column
DECLARE
	k text := sf_kiosk();
	pk packs%ROWTYPE;
	no int;
	v_em int; v_stake int; v_num int;
	s text;
BEGIN
	SELECT * INTO pk FROM packs WHERE serial = p_serial FOR UPDATE;
	IF NOT FOUND OR pk.kiosk IS DISTINCT FROM k OR pk.status <> 'claimed' THEN
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
		UPDATE packs SET kiosk = NULL, status = 'available', claimed_at = NULL WHERE serial = pk.serial;
		RETURN pk.serial;
	END IF;
	UPDATE packs SET count = p_from - pk.first, status = 'returned' WHERE serial = pk.serial;
	UPDATE block_cursors SET packs = packs + 1 WHERE block_id = pk.block_id RETURNING packs INTO no;
	SELECT bl.emission, bl.stake_cents, bl.number INTO v_em, v_stake, v_num FROM blocks bl WHERE bl.id = pk.block_id;
	s := sf_block_ref(v_em, v_stake, v_num) || '-P' || lpad(no::text, 5, '0');
	INSERT INTO packs (serial, block_id, first, count, status) VALUES (s, pk.block_id, p_from, pk.first + pk.count - p_from, 'available');
	RETURN s;
END $$;

CREATE FUNCTION heartbeat() RETURNS timestamptz
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE k text := sf_kiosk();
BEGIN
	UPDATE kiosks SET last_seen = now() WHERE id = k;
	RETURN now();
END $$;

-- lookup_ticket finds a sold unit of the fleet: support staff at any kiosk.
CREATE FUNCTION lookup_ticket(p_ticket text)
RETURNS TABLE (kiosk text, pack text, seq bigint, sold_at timestamptz, player text, unit bytea, revealed boolean)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public, pg_temp AS $$
#variable_conflict use_column
BEGIN
	PERFORM sf_kiosk();
	RETURN QUERY SELECT s.kiosk, s.pack_serial, s.seq, s.sold_at, s.player, s.unit, s.revealed FROM sales s WHERE s.ticket = p_ticket;
END $$;

-- kiosk_state is what the central knows of this kiosk: its last sequence
-- numbers and, per pack it held, the sales it has.
CREATE FUNCTION kiosk_state() RETURNS jsonb
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE k text := sf_kiosk();
BEGIN
	RETURN (SELECT jsonb_build_object('kiosk', kk.id, 'last_sale_seq', kk.last_sale_seq, 'last_movement_seq', kk.last_movement_seq,
		'packs', coalesce((SELECT jsonb_agg(jsonb_build_object('serial', pk.serial, 'emission', bl.emission, 'stake_cents', bl.stake_cents,
			'number', bl.number, 'first', pk.first, 'count', pk.count, 'status', pk.status,
			'sold', (SELECT count(*) FROM sales s WHERE s.pack_serial = pk.serial),
			'next', coalesce((SELECT max(s.position) + 1 FROM sales s WHERE s.pack_serial = pk.serial), pk.first)) ORDER BY pk.serial)
			FROM packs pk JOIN blocks bl ON bl.id = pk.block_id WHERE pk.kiosk = k), '[]'::jsonb))
		FROM kiosks kk WHERE kk.id = k);
END $$;

REVOKE ALL ON ALL FUNCTIONS IN SCHEMA public FROM PUBLIC;
DO $$
DECLARE g text := current_database() || '_kiosk';
BEGIN
	EXECUTE format('GRANT EXECUTE ON FUNCTION claim_pack(int), push_sales(jsonb), push_movements(jsonb), release_pack(text, int), '
		'heartbeat(), lookup_ticket(text), kiosk_state(), fetch_pack(text) TO %I', g);
END $$;
