-- The pooled role (`central pooler`, migrations/0011) gets the kiosk
-- roles' idle-in-transaction and statement timeouts (0005's
-- sf_kiosk_role_limits): a transaction left open through the pooler is
-- ended within kiosk_idle_in_transaction, whatever PgBouncer's own
-- idle_transaction_timeout says. Not the kiosks' connection limit: the
-- pooled role's connections are the pooler's pool, every kiosk's.
CREATE FUNCTION sf_pool_role_limits(p_role name) RETURNS void LANGUAGE plpgsql AS $$
DECLARE st fleet_settings%ROWTYPE;
BEGIN
	SELECT * INTO st FROM fleet_settings;
	EXECUTE format('ALTER ROLE %I SET idle_in_transaction_session_timeout = %L', p_role,
		(extract(epoch FROM st.kiosk_idle_in_transaction) * 1000)::bigint::text);
	EXECUTE format('ALTER ROLE %I SET statement_timeout = %L', p_role, (extract(epoch FROM st.kiosk_statement_timeout) * 1000)::bigint::text);
END $$;
REVOKE ALL ON FUNCTION sf_pool_role_limits(name) FROM PUBLIC;
SELECT sf_pool_role_limits(rolname) FROM pg_roles WHERE rolname = current_database() || '_pool';
