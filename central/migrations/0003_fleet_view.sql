-- The fleet as support staff watch it (engine.FleetView): each kiosk's
-- heartbeat now carries its sync backlog, kept with when it was reported;
-- fleet_view() gives kiosks (the operator panel's fleet tab) and the owner
-- (`central kiosks`) the same counts. Counts only: nothing here tells an
-- outcome, a prize, a seed, or what a block in play has paid or has left.

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

-- New functions are executable by PUBLIC until revoked. Kiosk roles get
-- EXECUTE through their group role (<database>_kiosk, which `central kiosk
-- add` makes every kiosk a member of), so kiosks added before this
-- migration and after it have the same rights.
REVOKE ALL ON FUNCTION heartbeat(int), sf_fleet_view(), fleet_view() FROM PUBLIC;
DO $$
BEGIN
	EXECUTE format('GRANT EXECUTE ON FUNCTION heartbeat(int), fleet_view() TO %I', current_database() || '_kiosk');
END $$;
