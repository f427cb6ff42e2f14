-- Movements partitioned by month (#32, a national fleet). The kiosks'
-- ledger movements (grants, credits, payouts, sales) belong to no block:
-- they are kept by the month the central received them (received_at, the
-- central's own clock, in UTC), one partition each, movements_m<YYYYMM>,
-- so that each month's indexes stay the size of a month, and an old
-- month can leave the central by detaching one partition, with no DELETE
-- and no bloat. Nothing detaches a month yet: the wallets' balances, the
-- kiosks' reconciliation and the limits' windows are sums over every
-- movement (docs/fleet.md "Archiving closed blocks" says what a month's
-- archive needs).
--
-- What changes, as 0013 did for sales:
--   - No unique key spans partitions without the partition key: (kiosk,
--     seq) and (kiosk, id) are indexed, not unique. push_movements takes a
--     kiosk's numbers in sequence under that kiosk's row lock, refuses a
--     push that numbers two movements alike, and refuses (a conflict) an
--     id the kiosk used already; the audit checks each kiosk's numbers are
--     gap-free and once, and each id once.
--   - No foreign keys from movements (to kiosks, to leases), nor to them
--     (hand_pays' to its payout): attaching a month would clone them and
--     lock kiosks and leases against every push and login, and a foreign
--     key to a partitioned table needs a unique key it cannot have. The
--     movement's kiosk is the caller's (sf_kiosk_lock), its lease checked
--     held by it, the hand pay inserted with its payout; the audit finds a
--     hand pay without its payout.
--   - A month's partition is made ahead: this month's and the next, by the
--     first push of each month (sf_movements_ahead), under an advisory
--     lock, attached with SHARE UPDATE EXCLUSIVE, which the kiosks'
--     inserts and reads do not wait for. There is no default partition.

ALTER TABLE hand_pays DROP CONSTRAINT hand_pays_kiosk_movement_fkey;
ALTER TABLE movements RENAME TO movements_0014;
ALTER INDEX movements_player_at RENAME TO movements_0014_player_at;
ALTER INDEX movements_lease RENAME TO movements_0014_lease;
ALTER TABLE movements_0014 RENAME CONSTRAINT movements_pkey TO movements_0014_pkey;
ALTER TABLE movements_0014 RENAME CONSTRAINT movements_kiosk_seq_key TO movements_0014_kiosk_seq_key;

CREATE TABLE movements (
	kiosk        text NOT NULL,
	id           text NOT NULL,
	seq          bigint NOT NULL,
	player       text NOT NULL,
	kind         text NOT NULL,
	debit_cents  bigint NOT NULL,
	credit_cents bigint NOT NULL,
	ticket       text,
	at           timestamptz NOT NULL,
	received_at  timestamptz NOT NULL DEFAULT now(),
	lease_id     bigint
) PARTITION BY RANGE (received_at);
CREATE INDEX movements_kiosk_seq ON movements (kiosk, seq);
CREATE INDEX movements_kiosk_id ON movements (kiosk, id);
CREATE INDEX movements_player_at ON movements (player, at);
CREATE INDEX movements_lease ON movements (lease_id) WHERE lease_id IS NOT NULL;
REVOKE ALL ON movements FROM PUBLIC;

-- sf_movements_partition makes and attaches the partition of the month
-- (UTC) that holds time t, unless it is there.
CREATE FUNCTION sf_movements_partition(t timestamptz) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	m timestamp := date_trunc('month', t AT TIME ZONE 'UTC');
	name text := 'movements_m' || to_char(m, 'YYYYMM');
BEGIN
	IF to_regclass(name) IS NOT NULL THEN
		RETURN;
	END IF;
	EXECUTE format('CREATE TABLE %I (LIKE movements INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', name);
	EXECUTE format('ALTER TABLE movements ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', name,
	               m AT TIME ZONE 'UTC', (m + interval '1 month') AT TIME ZONE 'UTC');
END $$;

-- sf_movements_ahead makes this month's partition and the next, once:
-- called by every push of movements before it reads them, it costs two
-- catalog lookups when both are there. Two pushes at a month's first
-- instant make them one after the other (the advisory lock), the second
-- finding them made.
CREATE FUNCTION sf_movements_ahead() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	IF to_regclass('movements_m' || to_char(now() AT TIME ZONE 'UTC', 'YYYYMM')) IS NOT NULL
	   AND to_regclass('movements_m' || to_char((now() AT TIME ZONE 'UTC') + interval '1 month', 'YYYYMM')) IS NOT NULL THEN
		RETURN;
	END IF;
	PERFORM pg_advisory_xact_lock(hashtext('sf_movements_ahead'));
	PERFORM sf_movements_partition(now());
	PERFORM sf_movements_partition(now() + interval '1 month');
END $$;
REVOKE ALL ON FUNCTION sf_movements_partition(timestamptz), sf_movements_ahead() FROM PUBLIC;

SELECT sf_movements_partition(m AT TIME ZONE 'UTC') FROM (SELECT DISTINCT date_trunc('month', received_at AT TIME ZONE 'UTC') AS m FROM movements_0014) x;
SELECT sf_movements_ahead();
INSERT INTO movements (kiosk, id, seq, player, kind, debit_cents, credit_cents, ticket, at, received_at, lease_id)
SELECT kiosk, id, seq, player, kind, debit_cents, credit_cents, ticket, at, received_at, lease_id FROM movements_0014;
DROP TABLE movements_0014;
-- As 0005's: NOT VALID keeps the rows forged before it for the audit to
-- list; every partition made from now on has them (LIKE … INCLUDING
-- CONSTRAINTS), and they hold every new row.
ALTER TABLE movements
	ADD CONSTRAINT movements_kind CHECK (kind IN ('grant', 'credit', 'payout', 'sale')) NOT VALID,
	ADD CONSTRAINT movements_amounts CHECK (debit_cents BETWEEN 0 AND 100000000 AND credit_cents BETWEEN 0 AND 100000000) NOT VALID,
	ADD CONSTRAINT movements_direction CHECK (CASE kind
		WHEN 'sale' THEN debit_cents > 0
		WHEN 'payout' THEN debit_cents > 0 AND credit_cents = 0
		ELSE credit_cents > 0 AND debit_cents = 0 END) NOT VALID;

-- push_movements, as 0008 made it, but that it makes the month's
-- partitions ahead, refuses a push that numbers two movements alike, and
-- refuses an id the kiosk used already (stored, or earlier in the push),
-- which the unique (kiosk, id) and (kiosk, seq) used to drop.
--
-- And each pushed row looks up the movement the kiosk stored under its id,
-- and its lease, by one probe of an index (a LATERAL … LIMIT 1, which the
-- planner neither flattens into a join nor hashes): written as EXISTS in a
-- CASE, the planner may hash every movement the kiosk ever pushed to
-- answer them, once per push, when its estimates are a fresh partition's,
-- and a push then costs the kiosk's whole history (make bench's
-- fleet_block_s went from 55 s to 424 s with such plans).
CREATE OR REPLACE FUNCTION push_movements(p jsonb)
RETURNS TABLE (applied bigint, duplicates bigint, conflicts bigint, last_seq bigint)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp SET lock_timeout = '2s' AS $$
#variable_conflict use_column
DECLARE
	k text := sf_kiosk_lock();
	st fleet_settings%ROWTYPE;
	v_last bigint; lo bigint; hi bigint; n bigint; v_rows bigint;
	v_app bigint; v_dup bigint; v_conf bigint; v_room bigint;
BEGIN
	PERFORM sf_push_bounds(p);
	PERFORM sf_movements_ahead();
	SELECT * INTO st FROM fleet_settings;
	SELECT kk.last_movement_seq INTO v_last FROM kiosks kk WHERE kk.id = k;
	SELECT min(x.seq), max(x.seq), count(DISTINCT x.seq), count(*) INTO lo, hi, n, v_rows
	  FROM jsonb_to_recordset(p) AS x(seq bigint) WHERE x.seq > v_last;
	IF n > 0 AND (lo <> v_last + 1 OR hi - lo + 1 <> n) THEN
		RAISE EXCEPTION 'kiosk % pushed movements % to %, the central has up to %', k, lo, hi, v_last USING ERRCODE = 'SF002';
	END IF;
	IF v_rows <> n THEN
		RAISE EXCEPTION 'kiosk % pushed two movements under one number', k USING ERRCODE = 'SF002';
	END IF;
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
		FROM jsonb_to_recordset(p) AS x(seq bigint, id text, player text, kind text, debit_cents bigint,
		                                credit_cents bigint, ticket text, at timestamptz, lease bigint, hand jsonb)
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
