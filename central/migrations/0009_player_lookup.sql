-- An account read fleet-wide at a kiosk (#31): an attendant at any kiosk
-- sees the account as the central holds it, what each of its limits
-- counts over the whole fleet, its sessions at other kiosks and what its
-- wallet holds at each. A kiosk's role reads no account it holds no lease
-- of without the player: the look-up takes the card's PIN, checked and
-- counted towards the lockout as at a login. The owner's `central players
-- show` reads the same view.

ALTER TABLE player_log DROP CONSTRAINT player_log_kind_check;
ALTER TABLE player_log ADD CONSTRAINT player_log_kind_check
	CHECK (kind IN ('opened', 'pin-set', 'limit', 'break', 'listed', 'pin-locked', 'pin-unlocked',
	                'lease-granted', 'lease-renewed', 'lease-returned', 'lease-revoked', 'looked-up'));

-- sf_player_leases is the open leases (not ended, not past their time) of
-- account p_player (NULL: of every account), with what the movements
-- pushed under each used of its deposit and stake rooms.
CREATE FUNCTION sf_player_leases(p_player text)
RETURNS TABLE (id bigint, player text, kiosk text, granted_at timestamptz, ttl_ms bigint, expires_at timestamptz, rooms jsonb,
               revoked text, deposited bigint, staked bigint) LANGUAGE sql STABLE AS $$
	SELECT le.id, le.player, le.kiosk, le.granted_at, (extract(epoch FROM le.ttl) * 1000)::bigint, le.expires_at, le.rooms,
	       coalesce(le.revoked_reason, ''),
	       coalesce((SELECT sum(m.credit_cents) FROM movements m WHERE m.lease_id = le.id AND m.kind = 'credit'), 0)::bigint,
	       coalesce((SELECT sum(m.debit_cents) FROM movements m WHERE m.lease_id = le.id AND m.kind = 'sale'), 0)::bigint
	  FROM leases le
	 WHERE (p_player IS NULL OR le.player = p_player) AND le.ended_at IS NULL AND le.expires_at > now()
$$;

-- sf_player_view is account p_player as the central holds it now
-- (sf_player_json), with, per limit in force, what its window counts over
-- every kiosk's synced movements and what the open leases may still use
-- (sf_limit_room), the open leases, and the balance of the player's
-- wallet at each kiosk from the synced movements (kiosks at zero left
-- out). NULL for an unknown account.
CREATE FUNCTION sf_player_view(p_player text) RETURNS jsonb LANGUAGE sql STABLE AS $$
	SELECT jsonb_build_object('account', sf_player_json(p.player, now()),
		'usage', coalesce((SELECT jsonb_agg(jsonb_build_object('limit', u.limit_key, 'max', u.max_cents, 'used', u.used,
		                                                       'outstanding', u.outstanding))
		                     FROM sf_limit_room(p.player, now(), interval '0') u), '[]'),
		'leases', coalesce((SELECT jsonb_agg(to_jsonb(l) ORDER BY l.id) FROM sf_player_leases(p.player) l), '[]'),
		'funds', coalesce((SELECT jsonb_agg(jsonb_build_object('kiosk', f.kiosk, 'cents', f.cents) ORDER BY f.kiosk)
		                     FROM (SELECT m.kiosk, sum(m.credit_cents - m.debit_cents) AS cents
		                             FROM movements m WHERE m.player = p.player GROUP BY m.kiosk) f
		                    WHERE f.cents <> 0), '[]'))
	  FROM players p WHERE p.player = p_player
$$;

-- sf_player_pin checks p_pin against account p's PIN (the caller holds
-- its row), a wrong one counted towards the card's lockout at every
-- kiosk: the refusal (locked; wrong-pin with the tries left), or NULL
-- when the PIN is right (the count of wrong ones then starts again).
CREATE FUNCTION sf_player_pin(p players, p_pin text, p_kiosk text, p_now timestamptz) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
	v_tries int;
BEGIN
	IF p.pin_locked THEN
		RETURN jsonb_build_object('status', 'locked');
	END IF;
	IF p_pin IS NULL OR p_pin !~ '^[0-9]{4,8}$' OR crypt(p_pin, p.pin_hash) IS DISTINCT FROM p.pin_hash THEN
		SELECT player_pin_tries INTO v_tries FROM fleet_settings;
		UPDATE players SET pin_fails = pin_fails + 1, pin_locked = pin_fails + 1 >= v_tries WHERE player = p.player;
		IF p.pin_fails + 1 >= v_tries THEN
			PERFORM sf_log(p_now, p.player, 'pin-locked', 'player', p_kiosk, NULL, NULL);
			RETURN jsonb_build_object('status', 'locked');
		END IF;
		RETURN jsonb_build_object('status', 'wrong-pin', 'left', v_tries - p.pin_fails - 1);
	END IF;
	IF p.pin_fails > 0 THEN
		UPDATE players SET pin_fails = 0 WHERE player = p.player;
	END IF;
	RETURN NULL;
END $$;

-- player_login, as 0007 made it, with the PIN's check in sf_player_pin,
-- which the look-up shares.
CREATE OR REPLACE FUNCTION player_login(p_card text, p_pin text) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp SET lock_timeout = '2s' SET TimeZone = 'UTC' AS $$
DECLARE
	k text := sf_kiosk();
	p players%ROWTYPE;
	v_now timestamptz;
	v_refusal jsonb;
	v_lease bigint;
BEGIN
	SELECT * INTO p FROM players WHERE player = p_card FOR UPDATE;
	IF NOT FOUND THEN
		RETURN jsonb_build_object('status', 'unknown-card');
	END IF;
	v_now := clock_timestamp();
	v_refusal := sf_player_pin(p, p_pin, k, v_now);
	IF v_refusal IS NOT NULL THEN
		RETURN v_refusal;
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

-- player_lookup is account p_card for attendant p_actor at the calling
-- kiosk, the player present: the PIN checked as at a login, no lease
-- reserved, the account shown whatever its state (on a break, listed,
-- not complete). The look-up is in the player's log. Statuses: ok (with
-- sf_player_view's fields), unknown-card, wrong-pin, locked.
CREATE FUNCTION player_lookup(p_card text, p_pin text, p_actor text) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp SET lock_timeout = '2s' SET TimeZone = 'UTC' AS $$
DECLARE
	k text := sf_kiosk();
	p players%ROWTYPE;
	v_now timestamptz;
	v_refusal jsonb;
BEGIN
	IF p_actor IS NULL OR length(p_actor) NOT BETWEEN 1 AND 64 THEN
		RAISE EXCEPTION 'player_lookup: say who looks (a name of 1 to 64 characters)' USING ERRCODE = '22023';
	END IF;
	SELECT * INTO p FROM players WHERE player = p_card FOR UPDATE;
	IF NOT FOUND THEN
		RETURN jsonb_build_object('status', 'unknown-card');
	END IF;
	v_now := clock_timestamp();
	v_refusal := sf_player_pin(p, p_pin, k, v_now);
	IF v_refusal IS NOT NULL THEN
		RETURN v_refusal;
	END IF;
	PERFORM sf_log(v_now, p.player, 'looked-up', p_actor, k, NULL, NULL);
	RETURN jsonb_build_object('status', 'ok') || sf_player_view(p.player);
END $$;

REVOKE ALL ON FUNCTION sf_player_leases(text), sf_player_view(text), sf_player_pin(players, text, text, timestamptz),
	player_lookup(text, text, text) FROM PUBLIC;
DO $$
BEGIN
	EXECUTE format('GRANT EXECUTE ON FUNCTION player_lookup(text, text, text) TO %I', current_database() || '_kiosk');
END $$;
