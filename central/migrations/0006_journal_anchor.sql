-- The central anchors each kiosk's journal (#36): a shell on a kiosk,
-- without its key, cannot forge or reorder the journal's sealed lines, but
-- it can cut the last ones, or put back an older copy of the whole data
-- directory, to erase a payout. At every heartbeat the kiosk reports its
-- journal's head (the last entry's number and hash); the central keeps the
-- highest, and a head behind it, or the same entry with another hash, is a
-- rollback: recorded as an alarm (central audit lists it) and answered
-- with NULL instead of the time (an error would undo the alarm), which the
-- kiosk takes as a refusal: it stops selling and says why. recover on a lost
-- store asks journal_anchor() for the head its journal must reach.
ALTER TABLE kiosks
	ADD COLUMN journal_seq bigint NOT NULL DEFAULT 0 CHECK (journal_seq >= 0),
	ADD COLUMN journal_hash bytea CHECK (journal_hash IS NULL OR length(journal_hash) = 32),
	ADD COLUMN journal_at timestamptz;

CREATE TABLE journal_alarms (
	id            bigserial PRIMARY KEY,
	kiosk         text NOT NULL REFERENCES kiosks (id),
	at            timestamptz NOT NULL DEFAULT now(),
	anchored_seq  bigint NOT NULL,
	anchored_hash bytea,
	reported_seq  bigint NOT NULL,
	reported_hash bytea,
	-- Staff who re-anchored the kiosk (central kiosk reanchor: a kiosk
	-- restored from a backup on purpose) and why; the audit lists the
	-- alarms not yet resolved.
	resolved      text
);
REVOKE ALL ON journal_alarms FROM PUBLIC;

-- The one-argument heartbeat is gone: a kiosk that does not report its
-- head is not anchored, and the old call would let it stay silent.
DROP FUNCTION heartbeat(int);

CREATE FUNCTION heartbeat(p_backlog int, p_journal_seq bigint, p_journal_hash bytea) RETURNS timestamptz
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp SET lock_timeout = '2s' AS $$
DECLARE
	k text := sf_kiosk_lock();
	kr kiosks%ROWTYPE;
BEGIN
	SELECT * INTO kr FROM kiosks WHERE id = k;
	IF p_journal_seq IS NULL OR p_journal_seq < 0 OR (p_journal_seq > 0 AND length(p_journal_hash) IS DISTINCT FROM 32) THEN
		RAISE EXCEPTION 'heartbeat: a journal head is an entry number and a 32-byte hash' USING ERRCODE = 'SF009';
	END IF;
	IF p_journal_seq < kr.journal_seq OR (p_journal_seq = kr.journal_seq AND p_journal_hash IS DISTINCT FROM kr.journal_hash) THEN
		-- One alarm per head reported: the kiosk repeats it every round.
		INSERT INTO journal_alarms (kiosk, anchored_seq, anchored_hash, reported_seq, reported_hash)
		SELECT k, kr.journal_seq, kr.journal_hash, p_journal_seq, p_journal_hash
		 WHERE NOT EXISTS (SELECT 1 FROM journal_alarms a WHERE a.kiosk = k AND a.anchored_seq = kr.journal_seq
		                      AND a.reported_seq = p_journal_seq AND a.reported_hash IS NOT DISTINCT FROM p_journal_hash
		                      AND a.resolved IS NULL);
		UPDATE kiosks SET last_seen = now() WHERE id = k;
		RETURN NULL; -- the kiosk reads NULL as the refusal (a RAISE would undo the alarm)
	END IF;
	UPDATE kiosks SET last_seen = now(), backlog = greatest(p_backlog, 0), backlog_at = now(),
		journal_seq = p_journal_seq, journal_hash = p_journal_hash, journal_at = now()
	 WHERE id = k;
	PERFORM sf_close_done();
	RETURN now();
END $$;

-- journal_anchor is the calling kiosk's anchored head (0 and NULL before
-- its first heartbeat), never another kiosk's.
CREATE FUNCTION journal_anchor(OUT seq bigint, OUT hash bytea)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public, pg_temp SET lock_timeout = '2s' AS $$
	SELECT journal_seq, journal_hash FROM kiosks WHERE id = sf_kiosk()
$$;

REVOKE ALL ON FUNCTION heartbeat(int, bigint, bytea), journal_anchor() FROM PUBLIC;
DO $$
BEGIN
	EXECUTE format('GRANT EXECUTE ON FUNCTION heartbeat(int, bigint, bytea), journal_anchor() TO %I', current_database() || '_kiosk');
END $$;

-- sf_reanchor is staff accepting a kiosk's journal as it now is (the
-- owner's: central kiosk reanchor): a kiosk restored from an older backup
-- on purpose. Its anchor is forgotten, its next heartbeat anchors anew,
-- and its open alarms are marked resolved with who and why.
CREATE FUNCTION sf_reanchor(p_kiosk text, p_reason text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE n bigint;
BEGIN
	IF coalesce(btrim(p_reason), '') = '' THEN
		RAISE EXCEPTION 're-anchoring a kiosk needs a reason';
	END IF;
	UPDATE kiosks SET journal_seq = 0, journal_hash = NULL, journal_at = now() WHERE id = p_kiosk;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'no kiosk %', p_kiosk;
	END IF;
	UPDATE journal_alarms SET resolved = format('re-anchored by %s on %s: %s', session_user, now(), p_reason)
	 WHERE kiosk = p_kiosk AND resolved IS NULL;
	GET DIAGNOSTICS n = ROW_COUNT;
	RETURN n;
END $$;
REVOKE ALL ON FUNCTION sf_reanchor(text, text) FROM PUBLIC;
