-- Each kiosk's data key is encrypted at rest on its own disk (#34): the
-- keyring in its data directory has a slot sealed under a key-encryption
-- key that only the central holds, one per kiosk, made with the kiosk
-- (gen_random_bytes is pgcrypto's, which the leaf hash already uses). At
-- start-up the kiosk asks for its own, over its authenticated connection,
-- and keeps it in memory only: a copy of the kiosk's disk opens nothing
-- without the central. The owner's role may read the column; no kiosk
-- role reads the table.
ALTER TABLE kiosks ADD COLUMN data_kek bytea NOT NULL DEFAULT gen_random_bytes(32) CHECK (length(data_kek) = 32);

-- kiosk_data_key is the calling kiosk's key-encryption key, never
-- another kiosk's.
CREATE FUNCTION kiosk_data_key() RETURNS bytea
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public, pg_temp AS $$
	SELECT data_kek FROM kiosks WHERE id = sf_kiosk()
$$;

REVOKE ALL ON FUNCTION kiosk_data_key() FROM PUBLIC;
DO $$
BEGIN
	EXECUTE format('GRANT EXECUTE ON FUNCTION kiosk_data_key() TO %I', current_database() || '_kiosk');
END $$;
