-- Kiosks behind a pooler (#32, a national fleet): PgBouncer in
-- transaction mode pools the connections of one role, so a kiosk cannot be
-- known by its login role there. Each call then proves its kiosk: the
-- transaction starts with sf_call(kiosk, number, mac), the MAC an
-- HMAC-SHA256 of "kiosk number" under the kiosk's own call key, which
-- only the kiosk and the central hold; a number is taken once (the last
-- 32 are kept, a number older than them refused), so a call seen on the
-- wire cannot be played again. sf_call leaves a token for the rest of the
-- transaction, bound to this backend and this transaction and sealed by a
-- secret only the central's functions read, which sf_kiosk() and
-- sf_kiosk_lock() accept in place of the login role. A kiosk's own login
-- role still identifies it on a direct connection.

ALTER TABLE kiosks
	ADD COLUMN call_key    bytea CHECK (length(call_key) = 32),
	ADD COLUMN call_nonces bigint[] NOT NULL DEFAULT '{}';
UPDATE kiosks SET call_key = gen_random_bytes(32);
ALTER TABLE kiosks ALTER COLUMN call_key SET DEFAULT gen_random_bytes(32), ALTER COLUMN call_key SET NOT NULL;

-- The seal of the tokens: read by the central's functions only.
CREATE TABLE call_secret (key bytea NOT NULL CHECK (length(key) = 32));
INSERT INTO call_secret VALUES (gen_random_bytes(32));
REVOKE ALL ON call_secret FROM PUBLIC;

-- sf_call_token is the token of kiosk p_kiosk's call in this transaction
-- on this backend.
CREATE FUNCTION sf_call_token(p_kiosk text) RETURNS text LANGUAGE sql STABLE AS $$
	SELECT x.body || ' ' || encode(hmac(convert_to(x.body, 'UTF8'), (SELECT key FROM call_secret), 'sha256'), 'hex')
	  FROM (SELECT p_kiosk || ' ' || pg_backend_pid() || ' ' || (extract(epoch FROM now()) * 1000000)::bigint AS body) x
$$;

-- sf_call proves the calling transaction's kiosk (SF004 when the MAC is
-- not p_kiosk's, SF013 when the number was taken or is too old).
CREATE FUNCTION sf_call(p_kiosk text, p_nonce bigint, p_mac bytea) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp SET lock_timeout = '2s' AS $$
DECLARE
	kk kiosks%ROWTYPE;
BEGIN
	SELECT * INTO kk FROM kiosks WHERE id = p_kiosk FOR NO KEY UPDATE;
	IF NOT FOUND OR p_nonce IS NULL OR p_mac IS DISTINCT FROM hmac(convert_to(p_kiosk || ' ' || p_nonce, 'UTF8'), kk.call_key, 'sha256') THEN
		RAISE EXCEPTION 'the call does not prove kiosk %', p_kiosk USING ERRCODE = 'SF004';
	END IF;
	IF p_nonce = ANY (kk.call_nonces) OR (cardinality(kk.call_nonces) >= 32 AND p_nonce <= kk.call_nonces[1]) THEN
		RAISE EXCEPTION 'call number % of kiosk % was taken or is too old', p_nonce, p_kiosk
			USING ERRCODE = 'SF013', DETAIL = 'last ' || kk.call_nonces[cardinality(kk.call_nonces)];
	END IF;
	UPDATE kiosks SET call_nonces = (SELECT array_agg(n ORDER BY n) FROM (SELECT n FROM unnest(kk.call_nonces || p_nonce) AS n ORDER BY n DESC LIMIT 32) x)
	 WHERE id = p_kiosk;
	PERFORM set_config('sf.call', sf_call_token(p_kiosk), true);
END $$;

-- sf_called is the kiosk this transaction's call proved, if any: a token
-- set by anything else, or left from another transaction or backend, is
-- not one.
CREATE FUNCTION sf_called() RETURNS text LANGUAGE plpgsql STABLE AS $$
DECLARE
	v text := current_setting('sf.call', true);
	k text := split_part(v, ' ', 1);
BEGIN
	IF coalesce(v, '') = '' OR v IS DISTINCT FROM sf_call_token(k) THEN
		RETURN NULL;
	END IF;
	RETURN k;
END $$;

-- sf_kiosk, as 0002 made it: the kiosk this transaction's call proved,
-- else the kiosk whose login role this is.
CREATE OR REPLACE FUNCTION sf_kiosk() RETURNS text LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE k text := sf_called();
BEGIN
	IF k IS NULL THEN
		SELECT id INTO k FROM kiosks WHERE role = session_user;
	END IF;
	IF k IS NULL THEN
		RAISE EXCEPTION 'role % is not a kiosk of this central, and the call proves none', session_user USING ERRCODE = 'SF004';
	END IF;
	RETURN k;
END $$;

-- sf_kiosk_lock, as 0005 made it, likewise.
CREATE OR REPLACE FUNCTION sf_kiosk_lock() RETURNS text LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE k text := sf_called();
BEGIN
	IF k IS NULL THEN
		SELECT id INTO k FROM kiosks WHERE role = session_user FOR NO KEY UPDATE;
	ELSE
		PERFORM 1 FROM kiosks WHERE id = k FOR NO KEY UPDATE;
	END IF;
	IF k IS NULL THEN
		RAISE EXCEPTION 'role % is not a kiosk of this central, and the call proves none', session_user USING ERRCODE = 'SF004';
	END IF;
	RETURN k;
END $$;

REVOKE ALL ON FUNCTION sf_call_token(text), sf_call(text, bigint, bytea), sf_called() FROM PUBLIC;
DO $$
BEGIN
	EXECUTE format('GRANT EXECUTE ON FUNCTION sf_call(text, bigint, bytea) TO %I', current_database() || '_kiosk');
END $$;
