-- The fleet as support staff watch it (engine.FleetView): each kiosk's
-- heartbeat now carries its sync backlog, kept with when it was reported;
-- fleet_view() gives kiosks (the operator panel's fleet tab) and the owner
-- (`central kiosks`) the same counts. Counts only: nothing here tells an
-- outcome, a prize, a seed, or what a block in play has paid or has left.
-- And lookup_ticket is rationed for tickets of blocks in play (below).

ALTER TABLE kiosks
	ADD COLUMN backlog    int CHECK (backlog >= 0), -- sales and movements the kiosk held unsynced, as it said
	ADD COLUMN backlog_at timestamptz;              -- when it said so (its last heartbeat)

DROP FUNCTION heartbeat();

CREATE FUNCTION heartbeat(p_backlog int) RETURNS timestamptz
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE k text := sf_kiosk();
BEGIN
	UPDATE kiosks SET last_seen = now(), backlog = greatest(p_backlog, 0), backlog_at = now() WHERE id = k;
	RETURN now();
END $$;

-- sf_fleet_view is the view itself, for the owner; kiosks reach it through
-- fleet_view(). Per kiosk: its packs still claimed and not sold out, per
-- stake, and their units left (count − the sales the central has). Per
-- stake: its blocks, those closed, and positions cut into packs, sold and
-- voided (the block cursors' counters, which the audit recounts).
CREATE FUNCTION sf_fleet_view() RETURNS jsonb LANGUAGE sql STABLE AS $$
	SELECT jsonb_build_object(
		'at', now(),
		'kiosks', coalesce((SELECT jsonb_agg(jsonb_build_object(
				'id', k.id, 'last_seen', k.last_seen, 'backlog', coalesce(k.backlog, 0), 'backlog_at', k.backlog_at,
				'sales', (SELECT count(*) FROM sales s WHERE s.kiosk = k.id),
				'held', coalesce((SELECT jsonb_agg(jsonb_build_object('stake_cents', h.stake_cents, 'packs', h.packs, 'left', h.units_left)
				                                   ORDER BY h.stake_cents)
					FROM (SELECT bl.stake_cents, count(*) AS packs, sum(p.count - p.sold) AS units_left
					        FROM (SELECT pk.block_id, pk.count, (SELECT count(*) FROM sales s WHERE s.pack_serial = pk.serial) AS sold
					                FROM packs pk WHERE pk.kiosk = k.id AND pk.status = 'claimed') p
					        JOIN blocks bl ON bl.id = p.block_id
					       WHERE p.count > p.sold
					       GROUP BY bl.stake_cents) h), '[]'::jsonb))
			ORDER BY k.id) FROM kiosks k), '[]'::jsonb),
		'stakes', coalesce((SELECT jsonb_agg(jsonb_build_object('stake_cents', x.stake_cents, 'blocks', x.blocks, 'closed', x.closed,
				'size', x.size, 'handed_out', x.handed_out, 'sold', x.sold, 'voided', x.voided) ORDER BY x.stake_cents)
			FROM (SELECT bl.stake_cents, count(*) AS blocks, count(bl.closed_at) AS closed, sum(c.size) AS size,
			             sum(c.next) AS handed_out, sum(c.sold) AS sold, sum(c.voided) AS voided
			        FROM blocks bl JOIN block_cursors c ON c.block_id = bl.id
			       GROUP BY bl.stake_cents) x), '[]'::jsonb))
$$;

CREATE FUNCTION fleet_view() RETURNS jsonb
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
	PERFORM sf_kiosk();
	RETURN sf_fleet_view();
END $$;

-- Look-ups by kiosks of tickets that other kiosks sold from blocks in play,
-- for a day: a kiosk may look up LookupsPerDay distinct ones in 24 hours
-- (SF006 beyond), so that no kiosk role can enumerate a block's sold tickets
-- and add up the prizes paid from it so far (which, the table being public,
-- tells the value left in it). Its own sales and closed blocks' are free.
CREATE TABLE ticket_lookups (
	kiosk  text NOT NULL REFERENCES kiosks,
	ticket text NOT NULL,
	at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX ticket_lookups_kiosk ON ticket_lookups (kiosk, at);

-- Replacing keeps 0002's grant.
CREATE OR REPLACE FUNCTION lookup_ticket(p_ticket text)
RETURNS TABLE (kiosk text, pack text, seq bigint, sold_at timestamptz, player text, unit bytea, revealed boolean)
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = public, pg_temp AS $$
#variable_conflict use_column
DECLARE
	k text := sf_kiosk();
	per_day constant int := 100; -- LookupsPerDay (README, "Fleet operations")
	v_seller text;
	v_open boolean;
BEGIN
	SELECT s.kiosk, bl.closed_at IS NULL INTO v_seller, v_open FROM sales s JOIN blocks bl ON bl.id = s.block_id WHERE s.ticket = p_ticket;
	IF NOT FOUND THEN -- not sold: counted too if its block is in play (probing what is unsold)
		SELECT bl.closed_at IS NULL INTO v_open FROM blocks bl WHERE sf_block_ref(bl.emission, bl.stake_cents, bl.number) = left(p_ticket, 11);
	END IF;
	IF coalesce(v_open, false) AND v_seller IS DISTINCT FROM k THEN
		PERFORM pg_advisory_xact_lock(hashtext('starfortune lookups ' || k));
		DELETE FROM ticket_lookups l WHERE l.kiosk = k AND l.at <= now() - interval '1 day';
		IF NOT EXISTS (SELECT 1 FROM ticket_lookups l WHERE l.kiosk = k AND l.ticket = p_ticket) THEN
			IF (SELECT count(DISTINCT l.ticket) FROM ticket_lookups l WHERE l.kiosk = k) >= per_day THEN
				RAISE EXCEPTION 'kiosk % looked up % tickets sold elsewhere from blocks in play within 24 hours', k, per_day USING ERRCODE = 'SF006';
			END IF;
			INSERT INTO ticket_lookups (kiosk, ticket) VALUES (k, p_ticket);
		END IF;
	END IF;
	RETURN QUERY SELECT s.kiosk, s.pack_serial, s.seq, s.sold_at, s.player, s.unit, s.revealed FROM sales s WHERE s.ticket = p_ticket;
END $$;

-- New functions are executable by PUBLIC until revoked. Kiosk roles get
-- EXECUTE through their group role (<database>_kiosk, which `central kiosk
-- add` makes every kiosk a member of), so kiosks added before this
-- migration and after it have the same rights.
REVOKE ALL ON FUNCTION heartbeat(int), sf_fleet_view(), fleet_view() FROM PUBLIC;
DO $$
BEGIN
	EXECUTE format('GRANT EXECUTE ON FUNCTION heartbeat(int), fleet_view() TO %I', current_database() || '_kiosk');
END $$;
