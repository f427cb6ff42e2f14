-- A claim locks the one pack it takes, nothing else (found by
-- TestFleetAttackStallsNoKiosk on a loaded machine). 0005's claim took
-- the first available pack with one ordered scan, FOR UPDATE SKIP LOCKED.
-- In READ COMMITTED, a row its snapshot still saw available, which another
-- kiosk's claim had taken and committed since, is locked in its newest
-- version (the other kiosk's pack) before the recheck drops it, and that
-- lock stays until the claimer's transaction ends. A kiosk's credentials
-- holding a transaction open after a claim thus held another kiosk's pack,
-- and that kiosk's pushes, which lock their own packs, waited for it until
-- their lock timeout. Now the candidates are read without a lock, and each
-- is tried in a subtransaction that is rolled back, with whatever lock the
-- recheck left, unless it takes the pack.

-- sf_take_pack claims pack p_serial for kiosk k if it is available and no
-- other call is claiming it; NULL otherwise, leaving no lock behind.
CREATE FUNCTION sf_take_pack(p_serial text, k text) RETURNS packs LANGUAGE plpgsql AS $$
DECLARE pk packs%ROWTYPE;
BEGIN
	BEGIN
		UPDATE packs a SET kiosk = k, status = 'claimed', claimed_at = now()
		 WHERE a.serial = (SELECT x.serial FROM packs x WHERE x.serial = p_serial AND x.status = 'available' FOR UPDATE SKIP LOCKED)
		RETURNING a.* INTO pk;
		IF NOT FOUND THEN
			RAISE EXCEPTION 'pack % was not taken', p_serial USING ERRCODE = 'SF014';
		END IF;
	EXCEPTION WHEN SQLSTATE 'SF014' THEN
		RETURN NULL; -- the subtransaction's rollback releases the recheck's lock
	END;
	RETURN pk;
END $$;
REVOKE ALL ON FUNCTION sf_take_pack(text, text) FROM PUBLIC;

-- claim_pack, as 0005 made it, taking its pack with sf_take_pack: the
-- first available pack at the stake (lowest emission, block and
-- position) that no other call is claiming.
CREATE OR REPLACE FUNCTION claim_pack(p_stake int)
RETURNS TABLE (serial text, emission int, stake_cents int, number int, size int, first int, count int,
               units bytea, salts bytea, proof bytea, root bytea)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp SET lock_timeout = '2s' AS $$
#variable_conflict use_column
DECLARE
	k text := sf_kiosk_lock();
	st fleet_settings%ROWTYPE;
	pk packs%ROWTYPE;
	v_held bigint; v_recent bigint; v_psize int; v_allowed bigint;
	v_serial text;
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
	FOR i IN 1..5 LOOP -- the candidates all taken by other calls meanwhile: read them again
		FOR v_serial IN SELECT x.serial FROM packs x JOIN blocks y ON y.id = x.block_id
		                 WHERE x.status = 'available' AND y.stake_cents = p_stake
		                 ORDER BY y.emission, y.number, x.first LIMIT 16 LOOP
			pk := sf_take_pack(v_serial, k);
			IF pk.serial IS NOT NULL THEN
				RETURN QUERY SELECT * FROM sf_pack_payload(pk.serial);
				RETURN;
			END IF;
		END LOOP;
		IF NOT FOUND THEN -- the loop read no candidate
			RAISE EXCEPTION 'no unit left to hand out at a stake of % cents', p_stake USING ERRCODE = 'SF001';
		END IF;
	END LOOP;
	RAISE EXCEPTION 'every pack left at a stake of % cents is being claimed by another kiosk: retry', p_stake USING ERRCODE = 'SF010';
END $$;
