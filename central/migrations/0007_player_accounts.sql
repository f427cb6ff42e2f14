-- Players' accounts of a fleet (#31): accounts, limits, breaks and the
-- exclusion list are the central's, so that a player stopped at one kiosk
-- is stopped at every other (engine/fleet_players.go is the kiosk's side).
-- At login the central checks card and PIN and reserves a lease: room
-- under every limit in force for the player, summed over the whole fleet;
-- the kiosk sells within it and renews it before it runs out. Every
-- reservation of a player is made under the lock of the player's row, so
-- that for every player and limit in force, at any time,
--   used in the limit's window (all kiosks' movements)
--   + what the open leases may still use of its kind  <=  the limit.
-- New SQLSTATEs (0005's list goes on; SF002 also refuses a renewal or a
-- return before the central holds the kiosk's movements through the
-- sequence number it gives):
--   SF011 not a limit: an unknown name, or an amount out of bounds
--   SF012 not a break length
-- The player functions refuse a card, a PIN, a break or a lease by a
-- status in their answer rather than an error: a wrong PIN must count
-- (and commit) as it is refused, as 0006's heartbeat returns NULL.

-- Card numbers: nine digits and a Damm check digit (engine.NewCard).
CREATE SEQUENCE card_seq MINVALUE 1 MAXVALUE 999999999 NO CYCLE;

CREATE TABLE players (
	-- The card's ten digits, which also name the player's wallet at every kiosk.
	player           text PRIMARY KEY CHECK (player ~ '^[0-9]{10}$' AND sf_damm(left(player, 9)) = right(player, 1)),
	holder           text NOT NULL,
	born             date NOT NULL,
	doc_type         text NOT NULL,
	doc_number       text NOT NULL,
	doc_key          text NOT NULL UNIQUE, -- engine.IdentityKey: what the exclusion list names
	pin_hash         text NOT NULL,        -- crypt(pin, gen_salt('bf', 8))
	pin_fails        int NOT NULL DEFAULT 0 CHECK (pin_fails >= 0),
	pin_locked       boolean NOT NULL DEFAULT false,
	-- The break in force or last taken: none while break_since is NULL and
	-- not indefinite; break_until is NULL for an indefinite one.
	break_since      timestamptz,
	break_until      timestamptz,
	break_indefinite boolean NOT NULL DEFAULT false,
	opened_at        timestamptz NOT NULL,
	opened_by        text NOT NULL,
	-- false: a wallet from before accounts, not completed: no login.
	complete         boolean NOT NULL DEFAULT true,
	CHECK (break_indefinite OR (break_since IS NULL) = (break_until IS NULL))
);

-- Every limit change: the limit of a key in force at t is the amount of
-- its last row effective at t (by effective_at, then id); 0 removes it.
-- A decrease is effective at once, an increase or a removal after the
-- cooling-off; a change waits while another is pending.
CREATE TABLE player_limits (
	id           bigserial PRIMARY KEY,
	player       text NOT NULL REFERENCES players,
	limit_key    text NOT NULL CHECK (limit_key IN ('deposit-day', 'deposit-week', 'deposit-month', 'stake-day', 'stake-week',
	                                                'stake-month', 'loss-day', 'loss-week', 'loss-month')),
	amount_cents bigint NOT NULL CHECK (amount_cents BETWEEN 0 AND 100000000),
	requested_at timestamptz NOT NULL,
	effective_at timestamptz NOT NULL CHECK (effective_at >= requested_at),
	actor        text NOT NULL
);
CREATE INDEX player_limits_player ON player_limits (player, limit_key, effective_at);

-- The exclusion list: identity keys, whether or not an account holds one.
CREATE TABLE listed (
	doc_key   text PRIMARY KEY,
	listed_at timestamptz NOT NULL,
	actor     text NOT NULL
);

-- Leases: room a session at one kiosk may use, per kind of limit (NULL:
-- the kind has no limit in force, unbounded). A lease is open until it is
-- ended (returned, renewed into another) or past expires_at; revoked, it
-- stays open (the kiosk may use it until it learns) but is not renewed,
-- but for a limit's decrease, which asks for a renewal.
CREATE TABLE leases (
	id             bigserial PRIMARY KEY,
	player         text NOT NULL REFERENCES players,
	kiosk          text NOT NULL REFERENCES kiosks,
	granted_at     timestamptz NOT NULL,
	ttl            interval NOT NULL,
	expires_at     timestamptz NOT NULL,
	room_deposit   bigint CHECK (room_deposit >= 0),
	room_stake     bigint CHECK (room_stake >= 0),
	room_loss      bigint CHECK (room_loss >= 0),
	-- The rooms as the kiosk was told them (engine.LeaseRoom: kind, room,
	-- and the limit that bound it with its amount and what was used).
	rooms          jsonb NOT NULL,
	renews         bigint REFERENCES leases, -- the lease it was renewed from (NULL: a login's)
	ended_at       timestamptz,
	end_reason     text CHECK (end_reason IN ('returned', 'expired')),
	revoked_at     timestamptz,
	revoked_reason text CHECK (revoked_reason IN ('break', 'listed', 'limit')),
	CHECK ((ended_at IS NULL) = (end_reason IS NULL)),
	CHECK ((revoked_at IS NULL) = (revoked_reason IS NULL))
);
CREATE INDEX leases_player_open ON leases (player) WHERE ended_at IS NULL;
CREATE INDEX leases_kiosk ON leases (kiosk);

-- The lease a pushed movement was made under (engine.FleetMovement.Lease).
ALTER TABLE movements ADD COLUMN lease_id bigint REFERENCES leases;
CREATE INDEX movements_player_at ON movements (player, at);
CREATE INDEX movements_lease ON movements (lease_id) WHERE lease_id IS NOT NULL;

-- Every change of an account, for the audit: who, what, when, where.
CREATE TABLE player_log (
	id     bigserial PRIMARY KEY,
	at     timestamptz NOT NULL,
	player text REFERENCES players, -- NULL: a listing of an identity no account holds
	kind   text NOT NULL CHECK (kind IN ('opened', 'pin-set', 'limit', 'break', 'listed', 'pin-locked', 'pin-unlocked',
	                                     'lease-granted', 'lease-renewed', 'lease-returned', 'lease-revoked')),
	actor  text NOT NULL, -- the staff member, or "player" at a kiosk
	kiosk  text REFERENCES kiosks,
	lease  bigint REFERENCES leases,
	detail jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX player_log_player ON player_log (player, id);

-- The operator's settings of the leases and the accounts.
ALTER TABLE fleet_settings
	-- A lease's room for stakes and for losses at most: what a kiosk may
	-- use between two renewals, and what a kiosk lost with its leases keeps
	-- from the others until they expire. A deposit room is all the deposit
	-- limits leave (a deposit is one movement, of any size).
	ADD COLUMN lease_size_cents bigint NOT NULL DEFAULT 5000 CHECK (lease_size_cents BETWEEN 1 AND 100000000),
	-- How long a lease lasts unless renewed; below the shortest window (a
	-- prize counted at a grant stays in its window for the lease's life).
	ADD COLUMN lease_ttl interval NOT NULL DEFAULT '15 min' CHECK (lease_ttl BETWEEN '2 min' AND '4 hours'),
	ADD COLUMN player_pin_tries int NOT NULL DEFAULT 5 CHECK (player_pin_tries BETWEEN 3 AND 10),
	ADD COLUMN cooling_off interval NOT NULL DEFAULT '48 h' CHECK (cooling_off BETWEEN '24 hours' AND '30 days');

-- sf_window is a limit's rolling window, in hours as the engine counts it
-- (a day is 24 hours whatever the time zone's changes).
CREATE FUNCTION sf_window(p_limit text) RETURNS interval LANGUAGE sql IMMUTABLE STRICT AS $$
	SELECT CASE split_part(p_limit, '-', 2) WHEN 'day' THEN interval '24 hours' WHEN 'week' THEN interval '168 hours'
	       ELSE interval '720 hours' END
$$;

-- sf_break_active says whether a break is in force at t (engine.Exclusion.Active).
CREATE FUNCTION sf_break_active(p_since timestamptz, p_until timestamptz, p_indefinite boolean, p_at timestamptz) RETURNS boolean
LANGUAGE sql IMMUTABLE AS $$
	SELECT p_indefinite OR (p_since IS NOT NULL AND p_at < p_until)
$$;

-- sf_break_json is a break as the kiosk and the owner read it
-- (engine.Exclusion); NULL for none.
CREATE FUNCTION sf_break_json(p_since timestamptz, p_until timestamptz, p_indefinite boolean) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE WHEN p_since IS NOT NULL OR p_indefinite
	            THEN jsonb_build_object('since', p_since, 'until', p_until, 'indefinite', p_indefinite) END
$$;

-- sf_limits_at is every limit in force for the player at t: its key,
-- kind, window and amount.
CREATE FUNCTION sf_limits_at(p_player text, p_at timestamptz)
RETURNS TABLE (limit_key text, kind text, win interval, max_cents bigint) LANGUAGE sql STABLE AS $$
	SELECT l.limit_key, split_part(l.limit_key, '-', 1), sf_window(l.limit_key), l.amount_cents
	  FROM (SELECT DISTINCT ON (pl.limit_key) pl.limit_key, pl.amount_cents
	          FROM player_limits pl
	         WHERE pl.player = p_player AND pl.effective_at <= p_at
	         ORDER BY pl.limit_key, pl.effective_at DESC, pl.id DESC) l
	 WHERE l.amount_cents > 0
$$;

-- sf_lease_outstanding is, per open lease of the player at t (not ended,
-- not past its time) other than p_except, and per kind it bounds, what it
-- may still use: its room less what the movements pushed under it used
-- (deposits for the deposit room, stakes for the stake room and the loss
-- room: the kiosk counts a loss as its stake, a prize freeing room only
-- at the next grant), never below zero.
CREATE FUNCTION sf_lease_outstanding(p_player text, p_at timestamptz, p_except bigint)
RETURNS TABLE (lease bigint, kind text, outstanding bigint) LANGUAGE sql STABLE AS $$
	SELECT le.id, r.kind,
	       greatest(0, r.room - coalesce((SELECT CASE r.kind WHEN 'deposit' THEN sum(m.credit_cents) FILTER (WHERE m.kind = 'credit')
	                                                         ELSE sum(m.debit_cents) FILTER (WHERE m.kind = 'sale') END
	                                        FROM movements m WHERE m.lease_id = le.id), 0))::bigint
	  FROM leases le
	 CROSS JOIN LATERAL (VALUES ('deposit', le.room_deposit), ('stake', le.room_stake), ('loss', le.room_loss)) AS r(kind, room)
	 WHERE le.player = p_player AND le.ended_at IS NULL AND le.expires_at > p_at AND r.room IS NOT NULL
	   AND le.id IS DISTINCT FROM p_except
$$;

-- sf_limit_room is, per limit in force for the player at t, what its
-- window counts over all kiosks' movements (deposits; stakes; stakes less
-- prizes, a prize counted only if it stays in the window for p_ttl more,
-- so that a prize aging out during a lease cannot take the loss over the
-- limit) and what the open leases may still use of its kind. One
-- statement: one snapshot of the movements and the leases, so that a
-- push moving a lease's room into the movements is counted once.
CREATE FUNCTION sf_limit_room(p_player text, p_at timestamptz, p_ttl interval)
RETURNS TABLE (limit_key text, kind text, max_cents bigint, used bigint, outstanding bigint) LANGUAGE sql STABLE AS $$
	WITH o AS (SELECT * FROM sf_lease_outstanding(p_player, p_at, NULL))
	SELECT l.limit_key, l.kind, l.max_cents,
	       coalesce((SELECT CASE l.kind
	                            WHEN 'deposit' THEN sum(m.credit_cents) FILTER (WHERE m.kind = 'credit')
	                            WHEN 'stake' THEN sum(m.debit_cents) FILTER (WHERE m.kind = 'sale')
	                            ELSE coalesce(sum(m.debit_cents) FILTER (WHERE m.kind = 'sale'), 0)
	                                 - coalesce(sum(m.credit_cents) FILTER (WHERE m.kind = 'sale' AND m.at > p_at - l.win + p_ttl), 0) END
	                   FROM movements m WHERE m.player = p_player AND m.at > p_at - l.win), 0)::bigint,
	       coalesce((SELECT sum(o.outstanding) FROM o WHERE o.kind = l.kind), 0)::bigint
	  FROM sf_limits_at(p_player, p_at) l
$$;

-- sf_log records a change of an account.
CREATE FUNCTION sf_log(p_at timestamptz, p_player text, p_kind text, p_actor text, p_kiosk text, p_lease bigint, p_detail jsonb)
RETURNS void LANGUAGE sql AS $$
	INSERT INTO player_log (at, player, kind, actor, kiosk, lease, detail)
	VALUES (p_at, p_player, p_kind, p_actor, p_kiosk, p_lease, coalesce(p_detail, '{}'))
$$;

-- sf_player_json is the account as a kiosk and the owner read it, at t:
-- holder, the limits in force and those pending, the break; never the
-- PIN's hash.
CREATE FUNCTION sf_player_json(p_player text, p_at timestamptz) RETURNS jsonb LANGUAGE sql STABLE AS $$
	SELECT jsonb_build_object('player', p.player, 'holder', p.holder, 'born', p.born, 'doc_type', p.doc_type, 'doc_number', p.doc_number,
		'opened_at', p.opened_at, 'opened_by', p.opened_by, 'complete', p.complete, 'pin_locked', p.pin_locked, 'pin_fails', p.pin_fails,
		'listed', EXISTS (SELECT 1 FROM listed x WHERE x.doc_key = p.doc_key),
		'limits', coalesce((SELECT jsonb_object_agg(l.limit_key, l.max_cents) FROM sf_limits_at(p.player, p_at) l), '{}'),
		'pending', coalesce((SELECT jsonb_agg(jsonb_build_object('limit', pl.limit_key, 'amount', pl.amount_cents,
		                                                         'requested_at', pl.requested_at, 'effective_at', pl.effective_at)
		                                      ORDER BY pl.effective_at, pl.id)
		                       FROM player_limits pl WHERE pl.player = p.player AND pl.effective_at > p_at), '[]'),
		'break', sf_break_json(p.break_since, p.break_until, p.break_indefinite))
	  FROM players p WHERE p.player = p_player
$$;

-- sf_lease_json is a lease as a kiosk receives it (engine.Lease).
CREATE FUNCTION sf_lease_json(p_id bigint) RETURNS jsonb LANGUAGE sql STABLE AS $$
	SELECT jsonb_build_object('id', le.id, 'player', le.player, 'granted_at', le.granted_at,
		'ttl_ms', (extract(epoch FROM le.ttl) * 1000)::bigint, 'rooms', le.rooms)
	  FROM leases le WHERE le.id = p_id
$$;

-- sf_read_committed refuses to reserve in a transaction that does not
-- read what committed before each statement: under REPEATABLE READ (a
-- role may make it its default) a reservation would not see the lease
-- another kiosk reserved while it waited for the player's row.
CREATE FUNCTION sf_read_committed() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	IF current_setting('transaction_isolation') <> 'read committed' THEN
		RAISE EXCEPTION 'the players'' functions run in READ COMMITTED transactions, not %', current_setting('transaction_isolation');
	END IF;
END $$;

-- sf_reserve_lease reserves a lease for the player at kiosk p_kiosk, at
-- p_now; the caller holds the player's row (FOR UPDATE), which serialises
-- all of a player's reservations. For each kind with a limit in force the
-- room is the least, over that kind's limits, of the limit less what its
-- window used less what the player's other open leases may still use of
-- the kind, at least 0, and for stakes and losses at most the lease's
-- size (renewals bring more; a deposit is one movement, of any size: its
-- room is all the deposit limits leave). The limit that binds it is
-- recorded with what the fleet had used of it (engine.LeaseRoom).
CREATE FUNCTION sf_reserve_lease(p_player text, p_kiosk text, p_now timestamptz, p_renews bigint) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
	st fleet_settings%ROWTYPE;
	r record;
	v_rooms jsonb := '{}'; -- per kind
	v_id bigint;
BEGIN
	PERFORM sf_read_committed();
	SELECT * INTO st FROM fleet_settings;
	FOR r IN SELECT x.*, x.max_cents - x.used - x.outstanding AS left_cents FROM sf_limit_room(p_player, p_now, st.lease_ttl) x
	          ORDER BY x.kind, x.max_cents - x.used - x.outstanding, x.limit_key LOOP
		CONTINUE WHEN v_rooms ? r.kind; -- the tightest of the kind came first
		IF r.kind = 'deposit' OR r.left_cents <= st.lease_size_cents THEN
			v_rooms := v_rooms || jsonb_build_object(r.kind, jsonb_build_object('kind', r.kind, 'room', greatest(r.left_cents, 0),
				'limit', r.limit_key, 'max', r.max_cents, 'used', r.used + r.outstanding));
		ELSE
			v_rooms := v_rooms || jsonb_build_object(r.kind, jsonb_build_object('kind', r.kind, 'room', st.lease_size_cents));
		END IF;
	END LOOP;
	INSERT INTO leases (player, kiosk, granted_at, ttl, expires_at, room_deposit, room_stake, room_loss, rooms, renews)
	VALUES (p_player, p_kiosk, p_now, st.lease_ttl, p_now + st.lease_ttl, (v_rooms -> 'deposit' ->> 'room')::bigint,
	        (v_rooms -> 'stake' ->> 'room')::bigint, (v_rooms -> 'loss' ->> 'room')::bigint,
	        coalesce((SELECT jsonb_agg(x.value ORDER BY array_position(ARRAY['deposit', 'stake', 'loss'], x.key)) FROM jsonb_each(v_rooms) x), '[]'),
	        p_renews)
	RETURNING id INTO v_id;
	PERFORM sf_log(p_now, p_player, CASE WHEN p_renews IS NULL THEN 'lease-granted' ELSE 'lease-renewed' END, 'player', p_kiosk, v_id,
		jsonb_build_object('rooms', (SELECT rooms FROM leases WHERE id = v_id), 'expires_at', p_now + st.lease_ttl, 'renews', p_renews));
	RETURN v_id;
END $$;

-- sf_revoke_lease revokes an open lease for a reason (break, listed,
-- limit): a break or a listing is not overwritten by a limit.
CREATE FUNCTION sf_revoke_lease(p_id bigint, p_reason text, p_now timestamptz, p_actor text, p_kiosk text) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE v_player text;
BEGIN
	UPDATE leases SET revoked_at = p_now, revoked_reason = p_reason
	 WHERE id = p_id AND ended_at IS NULL AND expires_at > p_now
	   AND (revoked_reason IS NULL OR (revoked_reason = 'limit' AND p_reason <> 'limit'))
	RETURNING player INTO v_player;
	IF FOUND THEN
		PERFORM sf_log(p_now, v_player, 'lease-revoked', p_actor, p_kiosk, p_id, jsonb_build_object('reason', p_reason));
	END IF;
END $$;

-- sf_revoke_leases revokes every open lease of the player (a break, a
-- listing); the caller holds the player's row.
CREATE FUNCTION sf_revoke_leases(p_player text, p_reason text, p_now timestamptz, p_actor text, p_kiosk text) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE v_id bigint;
BEGIN
	FOR v_id IN SELECT id FROM leases WHERE player = p_player AND ended_at IS NULL AND expires_at > p_now ORDER BY id LOOP
		PERFORM sf_revoke_lease(v_id, p_reason, p_now, p_actor, p_kiosk);
	END LOOP;
END $$;

-- sf_lease_refusal is why a lease may not serve a session any more at t:
-- '' while it stands, else a revocation (engine.Revoked*): a break or a
-- listing first, then its end, its time, a limit's decrease.
CREATE FUNCTION sf_lease_refusal(le leases, p_at timestamptz) RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE
		WHEN le.revoked_reason IN ('break', 'listed') THEN le.revoked_reason
		WHEN le.ended_at IS NOT NULL THEN le.end_reason
		WHEN le.expires_at <= p_at THEN 'expired'
		ELSE coalesce(le.revoked_reason, '') END
$$;

-- sf_kiosk_lease reads lease p_id if it is kiosk k's, under the lock of
-- its player's row (taken first: the order every player function takes);
-- NULL if the lease is not the kiosk's.
CREATE FUNCTION sf_kiosk_lease(p_id bigint, k text) RETURNS leases LANGUAGE plpgsql AS $$
DECLARE
	v_player text;
	le leases%ROWTYPE;
BEGIN
	SELECT player INTO v_player FROM leases WHERE id = p_id AND kiosk = k;
	IF NOT FOUND THEN
		RETURN NULL;
	END IF;
	PERFORM 1 FROM players WHERE player = v_player FOR UPDATE;
	SELECT * INTO le FROM leases WHERE id = p_id;
	RETURN le;
END $$;

-- sf_movements_through refuses (SF002) a renewal or a return before the
-- central holds kiosk k's movements through p_seq: what the session used
-- of the lease must be counted before its room comes back.
CREATE FUNCTION sf_movements_through(k text, p_seq bigint) RETURNS void LANGUAGE plpgsql AS $$
DECLARE v_last bigint;
BEGIN
	SELECT last_movement_seq INTO v_last FROM kiosks WHERE id = k;
	IF v_last < coalesce(p_seq, 0) THEN
		RAISE EXCEPTION 'kiosk % gives back a lease through movement %, the central has up to %', k, p_seq, v_last USING ERRCODE = 'SF002';
	END IF;
END $$;

-- sf_player_set_limit changes a limit of the player (amount 0 removes it)
-- with the lone kiosk's rules (engine.Accounts.SetLimit): a decrease at
-- once, an increase or a removal after the cooling-off, nothing while a
-- change waits, a mandatory limit never removed. A decrease revokes the
-- open leases that may use more than the new limit leaves them, or are
-- unbounded in its kind (a limit where there was none: reason limit, the
-- kiosk renews for the new room). Statuses: ok (with the
-- change), pending (with the change waiting), required, unknown-card.
CREATE FUNCTION sf_player_set_limit(p_player text, p_limit text, p_amount bigint, p_actor text, p_kiosk text) RETURNS jsonb
LANGUAGE plpgsql SET TimeZone = 'UTC' AS $$
DECLARE
	st fleet_settings%ROWTYPE;
	v_now timestamptz;
	pend player_limits%ROWTYPE;
	v_cur bigint;
	v_decrease boolean;
	v_effective timestamptz;
	r record;
	v_max bigint; v_used bigint; v_kind text;
BEGIN
	IF p_limit IS NULL OR p_limit NOT IN ('deposit-day', 'deposit-week', 'deposit-month', 'stake-day', 'stake-week', 'stake-month',
	                                      'loss-day', 'loss-week', 'loss-month')
	   OR p_amount IS NULL OR p_amount < 0 OR p_amount > 100000000 THEN
		RAISE EXCEPTION 'no limit % of % cents', p_limit, p_amount USING ERRCODE = 'SF011';
	END IF;
	IF p_amount = 0 AND p_limit IN ('deposit-week', 'stake-week') THEN
		RETURN jsonb_build_object('status', 'required');
	END IF;
	SELECT * INTO st FROM fleet_settings;
	PERFORM 1 FROM players WHERE player = p_player FOR UPDATE;
	IF NOT FOUND THEN
		RETURN jsonb_build_object('status', 'unknown-card');
	END IF;
	v_now := clock_timestamp();
	SELECT * INTO pend FROM player_limits WHERE player = p_player AND limit_key = p_limit AND effective_at > v_now ORDER BY id DESC LIMIT 1;
	IF FOUND THEN
		RETURN jsonb_build_object('status', 'pending', 'pending', jsonb_build_object('limit', pend.limit_key, 'amount', pend.amount_cents,
			'requested_at', pend.requested_at, 'effective_at', pend.effective_at));
	END IF;
	SELECT l.max_cents INTO v_cur FROM sf_limits_at(p_player, v_now) l WHERE l.limit_key = p_limit;
	v_decrease := p_amount > 0 AND (v_cur IS NULL OR p_amount < v_cur);
	IF NOT v_decrease AND v_cur = p_amount THEN -- nothing changes
		RETURN jsonb_build_object('status', 'ok', 'change', jsonb_build_object('limit', p_limit, 'amount', p_amount,
			'requested_at', v_now, 'effective_at', v_now));
	END IF;
	v_effective := CASE WHEN v_decrease THEN v_now ELSE v_now + st.cooling_off END;
	INSERT INTO player_limits (player, limit_key, amount_cents, requested_at, effective_at, actor)
	VALUES (p_player, p_limit, p_amount, v_now, v_effective, p_actor);
	PERFORM sf_log(v_now, p_player, 'limit', p_actor, p_kiosk, NULL,
		jsonb_build_object('limit', p_limit, 'amount', p_amount, 'effective_at', v_effective));
	IF v_decrease THEN
		PERFORM sf_read_committed();
		SELECT x.max_cents, x.used, x.kind INTO v_max, v_used, v_kind FROM sf_limit_room(p_player, v_now, st.lease_ttl) x
		 WHERE x.limit_key = p_limit;
		FOR r IN SELECT o.lease, o.outstanding, sum(o.outstanding) OVER () AS total
		           FROM sf_lease_outstanding(p_player, v_now, NULL) o WHERE o.kind = v_kind ORDER BY o.lease LOOP
			IF r.outstanding > 0 AND r.outstanding > v_max - v_used - (r.total - r.outstanding) THEN
				PERFORM sf_revoke_lease(r.lease, 'limit', v_now, p_actor, p_kiosk);
			END IF;
		END LOOP;
		-- A lease granted while the kind had no limit is unbounded in it.
		FOR r IN SELECT le.id FROM leases le
		          WHERE le.player = p_player AND le.ended_at IS NULL AND le.expires_at > v_now
		            AND CASE v_kind WHEN 'deposit' THEN le.room_deposit WHEN 'stake' THEN le.room_stake ELSE le.room_loss END IS NULL
		          ORDER BY le.id LOOP
			PERFORM sf_revoke_lease(r.id, 'limit', v_now, p_actor, p_kiosk);
		END LOOP;
	END IF;
	RETURN jsonb_build_object('status', 'ok', 'change', jsonb_build_object('limit', p_limit, 'amount', p_amount,
		'requested_at', v_now, 'effective_at', v_effective));
END $$;

-- sf_player_break records a break of the player (engine.Accounts.TakeBreak):
-- from now for its length (24h, 7d, 30d, 3m, 6m, 12m or indefinite, in
-- UTC), never ending before the break in force (status shorter, with it),
-- one break made longer keeping its start. It revokes every open lease of
-- the player. Statuses: ok (with the break), shorter, unknown-card.
CREATE FUNCTION sf_player_break(p_player text, p_break text, p_actor text, p_kiosk text) RETURNS jsonb
LANGUAGE plpgsql SET TimeZone = 'UTC' AS $$
DECLARE
	p players%ROWTYPE;
	v_now timestamptz;
	v_len interval;
	v_indefinite boolean := p_break IS NOT DISTINCT FROM 'indefinite';
	v_since timestamptz;
	v_until timestamptz;
	v_active boolean;
BEGIN
	v_len := CASE p_break WHEN '24h' THEN interval '24 hours' WHEN '7d' THEN interval '7 days' WHEN '30d' THEN interval '30 days'
	                      WHEN '3m' THEN interval '3 months' WHEN '6m' THEN interval '6 months' WHEN '12m' THEN interval '1 year' END;
	IF v_len IS NULL AND NOT v_indefinite THEN
		RAISE EXCEPTION 'no break of %', p_break USING ERRCODE = 'SF012';
	END IF;
	SELECT * INTO p FROM players WHERE player = p_player FOR UPDATE;
	IF NOT FOUND THEN
		RETURN jsonb_build_object('status', 'unknown-card');
	END IF;
	v_now := clock_timestamp();
	v_since := v_now;
	v_until := CASE WHEN v_indefinite THEN NULL ELSE v_now + v_len END;
	v_active := sf_break_active(p.break_since, p.break_until, p.break_indefinite, v_now);
	IF v_active AND (p.break_indefinite AND NOT v_indefinite OR NOT p.break_indefinite AND NOT v_indefinite AND v_until < p.break_until) THEN
		RETURN jsonb_build_object('status', 'shorter', 'break', sf_break_json(p.break_since, p.break_until, p.break_indefinite));
	END IF;
	IF v_active AND NOT p.break_indefinite AND NOT v_indefinite THEN
		v_since := p.break_since; -- one break, made longer
	END IF;
	UPDATE players SET break_since = v_since, break_until = v_until, break_indefinite = v_indefinite WHERE player = p_player;
	PERFORM sf_log(v_now, p_player, 'break', p_actor, p_kiosk, NULL,
		jsonb_build_object('break', p_break, 'since', v_since, 'until', v_until, 'indefinite', v_indefinite));
	PERFORM sf_revoke_leases(p_player, 'break', v_now, p_actor, p_kiosk);
	RETURN jsonb_build_object('status', 'ok', 'break', sf_break_json(v_since, v_until, v_indefinite));
END $$;

-- sf_player_open opens an account (the owner's: `central players open`,
-- the identity, limits and PIN checked by the program with the lone
-- kiosk's rules): its card numbered from card_seq, its limits in force at
-- once, its PIN hashed with bcrypt. Statuses: ok (with the account),
-- listed (the identity is on the exclusion list), taken (another account
-- holds the document).
CREATE FUNCTION sf_player_open(p_holder text, p_born date, p_doc_type text, p_doc_number text, p_doc_key text, p_limits jsonb,
                               p_pin text, p_actor text) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
	v_now timestamptz := clock_timestamp();
	v_body text;
	v_player text;
BEGIN
	IF EXISTS (SELECT 1 FROM listed WHERE doc_key = p_doc_key) THEN
		RETURN jsonb_build_object('status', 'listed');
	END IF;
	IF EXISTS (SELECT 1 FROM players WHERE doc_key = p_doc_key) THEN -- without a card number spent (the insert checks again)
		RETURN jsonb_build_object('status', 'taken');
	END IF;
	v_body := lpad(nextval('card_seq')::text, 9, '0');
	INSERT INTO players (player, holder, born, doc_type, doc_number, doc_key, pin_hash, opened_at, opened_by)
	VALUES (v_body || sf_damm(v_body), p_holder, p_born, p_doc_type, p_doc_number, p_doc_key, crypt(p_pin, gen_salt('bf', 8)), v_now, p_actor)
	ON CONFLICT (doc_key) DO NOTHING
	RETURNING player INTO v_player;
	IF v_player IS NULL THEN
		RETURN jsonb_build_object('status', 'taken');
	END IF;
	PERFORM sf_log(v_now, v_player, 'opened', p_actor, NULL, NULL,
		jsonb_build_object('holder', p_holder, 'born', p_born, 'doc_key', p_doc_key));
	INSERT INTO player_limits (player, limit_key, amount_cents, requested_at, effective_at, actor)
	SELECT v_player, l.key, l.value::bigint, v_now, v_now, p_actor FROM jsonb_each_text(p_limits) l;
	INSERT INTO player_log (at, player, kind, actor, detail)
	SELECT v_now, v_player, 'limit', p_actor, jsonb_build_object('limit', l.key, 'amount', l.value::bigint, 'effective_at', v_now)
	  FROM jsonb_each_text(p_limits) l ORDER BY l.key;
	PERFORM sf_log(v_now, v_player, 'pin-set', p_actor, NULL, NULL, NULL);
	RETURN jsonb_build_object('status', 'ok', 'account', sf_player_json(v_player, v_now));
END $$;

-- sf_player_unlock ends a card's lockout (the owner's: `central players
-- unlock-pin`, the holder present), with a new PIN if one is given.
-- Statuses: ok, unknown-card.
CREATE FUNCTION sf_player_unlock(p_player text, p_pin text, p_actor text) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE v_now timestamptz;
BEGIN
	PERFORM 1 FROM players WHERE player = p_player FOR UPDATE;
	IF NOT FOUND THEN
		RETURN jsonb_build_object('status', 'unknown-card');
	END IF;
	v_now := clock_timestamp();
	UPDATE players SET pin_fails = 0, pin_locked = false,
	       pin_hash = CASE WHEN coalesce(p_pin, '') = '' THEN pin_hash ELSE crypt(p_pin, gen_salt('bf', 8)) END
	 WHERE player = p_player;
	PERFORM sf_log(v_now, p_player, 'pin-unlocked', p_actor, NULL, NULL, NULL);
	IF coalesce(p_pin, '') <> '' THEN
		PERFORM sf_log(v_now, p_player, 'pin-set', p_actor, NULL, NULL, NULL);
	END IF;
	RETURN jsonb_build_object('status', 'ok');
END $$;

-- sf_list_identities puts identity keys on the exclusion list (the
-- owner's: `central exclusions import`); a key listed already is skipped.
-- The open leases of the accounts holding a key newly listed are revoked
-- (reason listed), under the lock of each one's row. It returns how many
-- keys it added and those accounts.
CREATE FUNCTION sf_list_identities(p_keys text[], p_actor text, OUT added int, OUT accounts text[]) LANGUAGE plpgsql AS $$
DECLARE
	v_now timestamptz := clock_timestamp();
	v_new text[];
	v_player text;
BEGIN
	WITH ins AS (
		INSERT INTO listed (doc_key, listed_at, actor) SELECT DISTINCT k, v_now, p_actor FROM unnest(p_keys) k
		ON CONFLICT DO NOTHING
		RETURNING doc_key
	)
	SELECT coalesce(array_agg(doc_key ORDER BY doc_key), '{}') INTO v_new FROM ins;
	added := cardinality(v_new);
	INSERT INTO player_log (at, player, kind, actor, detail)
	SELECT v_now, p.player, 'listed', p_actor, jsonb_build_object('doc_key', k)
	  FROM unnest(v_new) k LEFT JOIN players p ON p.doc_key = k ORDER BY k;
	accounts := '{}';
	FOR v_player IN SELECT p.player FROM players p WHERE p.doc_key = ANY (v_new) ORDER BY p.player FOR UPDATE LOOP
		PERFORM sf_revoke_leases(v_player, 'listed', clock_timestamp(), p_actor, NULL);
		accounts := accounts || v_player;
	END LOOP;
END $$;

-- player_login logs the holder of card p_card in at the calling kiosk:
-- under the lock of the player's row, a locked card is refused, the PIN
-- checked (a wrong one counted, and the card locked at player_pin_tries,
-- fleet-wide), then an account not completed, on a break or whose holder
-- is listed is refused; else a lease is reserved for the session. Its
-- answer: status (ok, unknown-card, locked, wrong-pin with the tries
-- left, incomplete, break with the break, listed), and for ok the
-- account and the lease.
CREATE FUNCTION player_login(p_card text, p_pin text) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp SET lock_timeout = '2s' SET TimeZone = 'UTC' AS $$
DECLARE
	k text := sf_kiosk();
	st fleet_settings%ROWTYPE;
	p players%ROWTYPE;
	v_now timestamptz;
	v_lease bigint;
BEGIN
	SELECT * INTO st FROM fleet_settings;
	SELECT * INTO p FROM players WHERE player = p_card FOR UPDATE;
	IF NOT FOUND THEN
		RETURN jsonb_build_object('status', 'unknown-card');
	END IF;
	v_now := clock_timestamp();
	IF p.pin_locked THEN
		RETURN jsonb_build_object('status', 'locked');
	END IF;
	IF p_pin IS NULL OR p_pin !~ '^[0-9]{4,8}$' OR crypt(p_pin, p.pin_hash) IS DISTINCT FROM p.pin_hash THEN
		UPDATE players SET pin_fails = pin_fails + 1, pin_locked = pin_fails + 1 >= st.player_pin_tries WHERE player = p.player;
		IF p.pin_fails + 1 >= st.player_pin_tries THEN
			PERFORM sf_log(v_now, p.player, 'pin-locked', 'player', k, NULL, NULL);
			RETURN jsonb_build_object('status', 'locked');
		END IF;
		RETURN jsonb_build_object('status', 'wrong-pin', 'left', st.player_pin_tries - p.pin_fails - 1);
	END IF;
	IF p.pin_fails > 0 THEN
		UPDATE players SET pin_fails = 0 WHERE player = p.player;
	END IF;
	IF NOT p.complete THEN
		RETURN jsonb_build_object('status', 'incomplete');
	END IF;
	IF sf_break_active(p.break_since, p.break_until, p.break_indefinite, v_now) THEN
		RETURN jsonb_build_object('status', 'break', 'break', sf_break_json(p.break_since, p.break_until, p.break_indefinite));
	END IF;
	IF EXISTS (SELECT 1 FROM listed WHERE doc_key = p.doc_key) THEN
		RETURN jsonb_build_object('status', 'listed');
	END IF;
	v_lease := sf_reserve_lease(p.player, k, v_now, NULL);
	RETURN jsonb_build_object('status', 'ok', 'account', sf_player_json(p.player, v_now), 'lease', sf_lease_json(v_lease));
END $$;

-- renew_lease ends the calling kiosk's lease p_id and reserves the next
-- for the same session, in one transaction under the player's row, once
-- the central holds the kiosk's movements through p_mov_seq (SF002
-- before). A lease ended, past its time, or revoked for a break or a
-- listing is not renewed (status revoked, with the reason: the kiosk ends
-- the session); one revoked for a limit is (the new room is the new
-- limit's). Statuses: ok (with the lease), revoked, unknown-lease (not a
-- lease of this kiosk).
CREATE FUNCTION renew_lease(p_id bigint, p_mov_seq bigint) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp SET lock_timeout = '2s' SET TimeZone = 'UTC' AS $$
DECLARE
	k text := sf_kiosk();
	le leases%ROWTYPE;
	p players%ROWTYPE;
	v_now timestamptz;
	v_why text;
	v_next bigint;
BEGIN
	SELECT * INTO le FROM sf_kiosk_lease(p_id, k);
	IF le.id IS NULL THEN
		RETURN jsonb_build_object('status', 'unknown-lease');
	END IF;
	v_now := clock_timestamp();
	SELECT * INTO p FROM players WHERE player = le.player;
	-- A break or a listing revokes the leases as it is recorded; checked
	-- again here, whatever changed the account.
	IF sf_break_active(p.break_since, p.break_until, p.break_indefinite, v_now) THEN
		PERFORM sf_revoke_lease(le.id, 'break', v_now, 'central', NULL);
	ELSIF EXISTS (SELECT 1 FROM listed WHERE doc_key = p.doc_key) THEN
		PERFORM sf_revoke_lease(le.id, 'listed', v_now, 'central', NULL);
	END IF;
	SELECT * INTO le FROM leases WHERE id = p_id;
	v_why := sf_lease_refusal(le, v_now);
	IF v_why NOT IN ('', 'limit') THEN
		RETURN jsonb_build_object('status', 'revoked', 'reason', v_why);
	END IF;
	PERFORM sf_movements_through(k, p_mov_seq);
	UPDATE leases SET ended_at = v_now, end_reason = 'returned' WHERE id = le.id;
	v_next := sf_reserve_lease(le.player, k, v_now, le.id);
	RETURN jsonb_build_object('status', 'ok', 'lease', sf_lease_json(v_next)); -- a statement of its own: it sees the new lease
END $$;

-- return_lease ends the calling kiosk's lease p_id (a logout): its
-- unused room comes back, once the central holds the kiosk's movements
-- through p_mov_seq (SF002 before; not asked of a lease past its time,
-- which holds no room). A lease ended already is returned again without
-- a change (a return whose answer was lost). Statuses: ok, unknown-lease.
CREATE FUNCTION return_lease(p_id bigint, p_mov_seq bigint) RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp SET lock_timeout = '2s' AS $$
DECLARE
	k text := sf_kiosk();
	le leases%ROWTYPE;
	v_now timestamptz;
	v_reason text;
BEGIN
	SELECT * INTO le FROM sf_kiosk_lease(p_id, k);
	IF le.id IS NULL THEN
		RETURN 'unknown-lease';
	END IF;
	IF le.ended_at IS NOT NULL THEN
		RETURN 'ok';
	END IF;
	v_now := clock_timestamp();
	v_reason := CASE WHEN le.expires_at <= v_now THEN 'expired' ELSE 'returned' END;
	IF v_reason = 'returned' THEN
		PERFORM sf_movements_through(k, p_mov_seq);
	END IF;
	UPDATE leases SET ended_at = v_now, end_reason = v_reason WHERE id = le.id;
	PERFORM sf_log(v_now, le.player, 'lease-returned', 'player', k, le.id, jsonb_build_object('reason', v_reason));
	RETURN 'ok';
END $$;

-- lease_states is what the central says now of the calling kiosk's leases
-- among p_ids (another kiosk's, or an unknown id, is left out): per lease
-- its revocation ('' while it stands, engine.Revoked*) and, while it is
-- open, the account as it stands (a kiosk reads no account it holds no
-- open lease of).
CREATE FUNCTION lease_states(p_ids bigint[]) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp SET lock_timeout = '2s' AS $$
DECLARE
	k text := sf_kiosk();
	v_now timestamptz := clock_timestamp();
	v_max int;
BEGIN
	SELECT push_max_rows INTO v_max FROM fleet_settings;
	IF cardinality(p_ids) > v_max THEN
		RAISE EXCEPTION 'lease_states takes at most % leases', v_max USING ERRCODE = 'SF009';
	END IF;
	RETURN coalesce((SELECT jsonb_agg(jsonb_build_object('id', le.id, 'revoked', sf_lease_refusal(le, v_now),
			'account', CASE WHEN le.ended_at IS NULL AND le.expires_at > v_now THEN sf_player_json(le.player, v_now) END) ORDER BY le.id)
		FROM leases le WHERE le.id = ANY (p_ids) AND le.kiosk = k), '[]');
END $$;

-- sf_acting_lease is the player acting at kiosk k through its lease p_id:
-- the lease must be the kiosk's and open, revoked for nothing but a limit;
-- else the answer that refuses the change (unknown-lease, revoked).
CREATE FUNCTION sf_acting_lease(p_id bigint, k text, OUT player text, OUT refusal jsonb) LANGUAGE plpgsql AS $$
DECLARE
	le leases%ROWTYPE;
	v_why text;
BEGIN
	SELECT * INTO le FROM sf_kiosk_lease(p_id, k);
	IF le.id IS NULL THEN
		refusal := jsonb_build_object('status', 'unknown-lease');
		RETURN;
	END IF;
	v_why := sf_lease_refusal(le, clock_timestamp());
	IF v_why NOT IN ('', 'limit') THEN
		refusal := jsonb_build_object('status', 'revoked', 'reason', v_why);
		RETURN;
	END IF;
	player := le.player;
END $$;

-- player_set_limit is the player changing a limit at the calling kiosk,
-- logged in there under lease p_id: sf_player_set_limit's rules and answer.
CREATE FUNCTION player_set_limit(p_id bigint, p_limit text, p_amount bigint) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp SET lock_timeout = '2s' AS $$
DECLARE
	k text := sf_kiosk();
	a record;
BEGIN
	SELECT * INTO a FROM sf_acting_lease(p_id, k);
	IF a.refusal IS NOT NULL THEN
		RETURN a.refusal;
	END IF;
	RETURN sf_player_set_limit(a.player, p_limit, p_amount, 'player', k);
END $$;

-- player_take_break is the player taking a break at the calling kiosk,
-- logged in there under lease p_id: sf_player_break's rules and answer;
-- every lease of the player, at every kiosk, is revoked.
-- A break only restricts: it is taken through any lease the calling kiosk
-- was granted for the player in the last 7 days, ended or not, so that a
-- break the player took while the kiosk could not reach the central (the
-- kiosk applied it at once, and kept it to send) still reaches every
-- kiosk once it can.
CREATE FUNCTION player_take_break(p_id bigint, p_break text) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp SET lock_timeout = '2s' AS $$
DECLARE
	k text := sf_kiosk();
	le leases%ROWTYPE;
BEGIN
	SELECT * INTO le FROM sf_kiosk_lease(p_id, k);
	IF le.id IS NULL OR le.granted_at < clock_timestamp() - interval '7 days' THEN
		RETURN jsonb_build_object('status', 'unknown-lease');
	END IF;
	RETURN sf_player_break(le.player, p_break, 'player', k);
END $$;

-- push_movements, as 0005 made it, now also keeps the lease each movement
-- was made under (engine.FleetMovement.Lease, 0 or absent: none), and
-- refuses (a conflict, as every other refusal) a movement whose lease is
-- not one the pushing kiosk holds for the same player.
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
			WHEN coalesce(x.lease, 0) <> 0 AND NOT EXISTS (SELECT 1 FROM leases le WHERE le.id = x.lease AND le.kiosk = k AND le.player = x.player)
				THEN 'lease not held by this kiosk for this player'
		END AS verdict
		FROM jsonb_to_recordset(p) AS x(seq bigint, id text, player text, kind text, debit_cents bigint,
		                                credit_cents bigint, ticket text, at timestamptz, lease bigint)
	), ins AS (
		INSERT INTO movements (kiosk, id, seq, player, kind, debit_cents, credit_cents, ticket, at, lease_id)
		SELECT k, j.id, j.seq, j.player, j.kind, j.debit_cents, j.credit_cents, j.ticket, j.at, nullif(j.lease, 0)
		  FROM judged j WHERE j.verdict IS NULL
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

-- New functions are executable by PUBLIC until revoked; the kiosk group
-- role gets its six (0003 says why through the group).
REVOKE ALL ON FUNCTION sf_window(text), sf_read_committed(), sf_break_active(timestamptz, timestamptz, boolean, timestamptz),
	sf_break_json(timestamptz, timestamptz, boolean), sf_limits_at(text, timestamptz),
	sf_lease_outstanding(text, timestamptz, bigint), sf_limit_room(text, timestamptz, interval),
	sf_log(timestamptz, text, text, text, text, bigint, jsonb), sf_player_json(text, timestamptz), sf_lease_json(bigint),
	sf_reserve_lease(text, text, timestamptz, bigint), sf_revoke_lease(bigint, text, timestamptz, text, text),
	sf_revoke_leases(text, text, timestamptz, text, text), sf_lease_refusal(leases, timestamptz), sf_kiosk_lease(bigint, text),
	sf_movements_through(text, bigint), sf_player_set_limit(text, text, bigint, text, text), sf_player_break(text, text, text, text),
	sf_player_open(text, date, text, text, text, jsonb, text, text), sf_player_unlock(text, text, text), sf_list_identities(text[], text),
	sf_acting_lease(bigint, text), player_login(text, text), renew_lease(bigint, bigint), return_lease(bigint, bigint),
	lease_states(bigint[]), player_set_limit(bigint, text, bigint), player_take_break(bigint, text)
	FROM PUBLIC;
DO $$
BEGIN
	EXECUTE format('GRANT EXECUTE ON FUNCTION player_login(text, text), renew_lease(bigint, bigint), return_lease(bigint, bigint), '
		'lease_states(bigint[]), player_set_limit(bigint, text, bigint), player_take_break(bigint, text) TO %I', current_database() || '_kiosk');
END $$;
