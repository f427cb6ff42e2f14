-- The fleet's register of large wins says how each was paid (#31). A
-- prize at or above the hand-pay threshold is held at the kiosk that sold
-- it until an attendant there checks the holder's identity and pays it by
-- hand (engine.Accounts.CheckIdentity, PayHeld); the payout's movement
-- brings what the register keeps of it (engine.HandPay: the document
-- seen, who checked it, who paid, the method and the reference), which
-- push_movements keeps in hand_pays once it has checked, against what the
-- central holds itself, that it is the payout of that player's prize.

-- The hand-pay threshold the central holds the kiosks' hand pays to: a
-- prize from it is paid by hand, so a hand pay of less is no prize held
-- for an attendant. The kiosk's own setting (engine.Protection's
-- handpay_threshold) is its operator's word, which the central does not
-- take; this is its own, by default the engine's (DefaultProtection:
-- 2 000 €), at most the 2 000 € from which identity is required, as a
-- kiosk's.
ALTER TABLE fleet_settings
	ADD COLUMN handpay_threshold_cents bigint NOT NULL DEFAULT 200000 CHECK (handpay_threshold_cents BETWEEN 1 AND 200000);

-- Every prize paid by hand, once: the payout movement that paid it, the
-- sale it paid (the same kiosk's, the same player's: push_movements
-- checks it), and the register's facts.
CREATE TABLE hand_pays (
	kiosk       text NOT NULL,
	movement    text NOT NULL,
	player      text NOT NULL,
	ticket      text NOT NULL UNIQUE,
	prize_cents bigint NOT NULL CHECK (prize_cents > 0),
	document    text NOT NULL CHECK (btrim(document) <> ''),
	checked_by  text NOT NULL,
	paid_by     text NOT NULL,
	method      text NOT NULL CHECK (btrim(method) <> ''),
	reference   text NOT NULL,
	at          timestamptz NOT NULL,
	PRIMARY KEY (kiosk, movement),
	FOREIGN KEY (kiosk, movement) REFERENCES movements (kiosk, id)
);

-- push_movements, as 0007 made it, now also keeps a payout's hand pay
-- (engine.FleetMovement.Hand, absent: none), and refuses (a conflict, as
-- every other refusal) a hand pay on anything but a payout; one without
-- the document seen or the method; one that is not the payout of a prize
-- at or above the hand-pay threshold that the same kiosk sold to the same
-- player, the amount paid being the prize: the central's own sale of the
-- ticket (push_sales stores the prize from the block, not the kiosk's
-- figure), and its sale movement, stored or accepted in the same push; a
-- second hand pay of the same ticket, stored or earlier in the push.
-- 0007's CREATE OR REPLACE had dropped 0005's lock_timeout: set again.
CREATE OR REPLACE FUNCTION push_movements(p jsonb)
RETURNS TABLE (applied bigint, duplicates bigint, conflicts bigint, last_seq bigint)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp SET lock_timeout = '2s' AS $$
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
	WITH judged0 AS ( -- 0007's verdicts
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
			WHEN coalesce(x.lease, 0) <> 0 AND NOT EXISTS (SELECT 1 FROM leases le WHERE le.id = x.lease AND le.kiosk = k AND le.player = x.player)
				THEN 'lease not held by this kiosk for this player'
		END AS verdict
		FROM jsonb_to_recordset(p) AS x(seq bigint, id text, player text, kind text, debit_cents bigint,
		                                credit_cents bigint, ticket text, at timestamptz, lease bigint, hand jsonb)
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
			                 SELECT 1 FROM judged0 y WHERE y.verdict IS NULL AND y.kind = 'sale' AND y.ticket = j.ticket AND y.player = j.player
			                                           AND y.credit_cents = j.debit_cents)
				THEN 'a hand pay that is not the payout of a prize this kiosk sold to this player'
			WHEN EXISTS (SELECT 1 FROM hand_pays h WHERE h.ticket = j.ticket) THEN 'a prize paid by hand twice'
		END) AS paid_verdict
		FROM judged0 j
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
		ON CONFLICT DO NOTHING
		RETURNING id
	), hands AS (
		INSERT INTO hand_pays (kiosk, movement, player, ticket, prize_cents, document, checked_by, paid_by, method, reference, at)
		SELECT k, j.id, j.player, j.ticket, j.debit_cents, j.hand ->> 'document', coalesce(j.hand ->> 'checked_by', ''),
		       coalesce(j.hand ->> 'paid_by', ''), j.hand ->> 'method', coalesce(j.hand ->> 'reference', ''), j.at
		  FROM judged j JOIN ins ON ins.id = j.id
		 WHERE j.hand IS NOT NULL
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
