-- Counters (#32, a national fleet): the fleet view reads counts kept as
-- the pushes and the closures write them, not scans of the sales or of a
-- closed block's packs, so that a refresh costs the same on a central
-- holding millions of sales as on an empty one. The audit still recounts
-- everything from the rows.

-- A kiosk's sales, counted by the statement that inserts them: push_sales
-- inserts one kiosk's batch under that kiosk's own row lock, so the count
-- adds no wait between kiosks.
ALTER TABLE kiosks ADD COLUMN sales_count bigint NOT NULL DEFAULT 0 CHECK (sales_count >= 0);
UPDATE kiosks k SET sales_count = (SELECT count(*) FROM sales s WHERE s.kiosk = k.id);

CREATE FUNCTION sf_count_sales() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	UPDATE kiosks k SET sales_count = k.sales_count + n.n
	  FROM (SELECT c.kiosk, count(*) AS n FROM counted c GROUP BY c.kiosk) n
	 WHERE k.id = n.kiosk;
	RETURN NULL;
END $$;
CREATE TRIGGER sales_counted AFTER INSERT ON sales REFERENCING NEW TABLE AS counted
	FOR EACH STATEMENT EXECUTE FUNCTION sf_count_sales();

-- A closed block's counts are final (every position sold or voided): kept
-- as it closes, so that the view sums the packs of the blocks in play only.
CREATE TABLE block_totals (
	block_id   bigint PRIMARY KEY REFERENCES blocks,
	handed_out int NOT NULL,
	sold       int NOT NULL,
	voided     int NOT NULL
);
INSERT INTO block_totals
SELECT n.block_id, n.handed_out, n.sold, n.voided FROM block_counts n JOIN blocks bl ON bl.id = n.block_id WHERE bl.closed_at IS NOT NULL;

CREATE FUNCTION sf_total_block() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO block_totals SELECT n.block_id, n.handed_out, n.sold, n.voided FROM block_counts n WHERE n.block_id = NEW.id
	ON CONFLICT DO NOTHING;
	RETURN NULL;
END $$;
CREATE TRIGGER block_totalled AFTER UPDATE OF closed_at ON blocks
	FOR EACH ROW WHEN (OLD.closed_at IS NULL AND NEW.closed_at IS NOT NULL) EXECUTE FUNCTION sf_total_block();

-- sf_block_progress is every block's counts: a closed block's totals, a
-- block in play's summed from its packs (block_counts).
CREATE FUNCTION sf_block_progress() RETURNS TABLE (block_id bigint, size int, handed_out int, sold int, voided int)
LANGUAGE sql STABLE AS $$
	SELECT bl.id, bl.size, t.handed_out, t.sold, t.voided FROM blocks bl JOIN block_totals t ON t.block_id = bl.id
	UNION ALL
	SELECT n.block_id, n.size, n.handed_out, n.sold, n.voided
	  FROM blocks bl JOIN block_counts n ON n.block_id = bl.id
	 WHERE NOT EXISTS (SELECT 1 FROM block_totals t WHERE t.block_id = bl.id)
$$;

-- The fleet view, as 0005 made it, from the counters.
CREATE OR REPLACE FUNCTION sf_fleet_view() RETURNS jsonb LANGUAGE sql STABLE AS $$
	SELECT jsonb_build_object(
		'at', now(),
		'kiosks', coalesce((SELECT jsonb_agg(jsonb_build_object(
				'id', k.id, 'last_seen', k.last_seen, 'backlog', coalesce(k.backlog, 0), 'backlog_at', k.backlog_at,
				'sales', k.sales_count,
				'held', coalesce((SELECT jsonb_agg(jsonb_build_object('stake_cents', h.stake_cents, 'packs', h.packs, 'left', h.units_left)
				                                   ORDER BY h.stake_cents)
					FROM (SELECT bl.stake_cents, count(*) AS packs, sum(p.count - p.sold) AS units_left
					        FROM packs p JOIN blocks bl ON bl.id = p.block_id
					       WHERE p.kiosk = k.id AND p.status = 'claimed' AND p.count > p.sold
					       GROUP BY bl.stake_cents) h), '[]'::jsonb))
			ORDER BY k.id) FROM kiosks k), '[]'::jsonb),
		'stakes', coalesce((SELECT jsonb_agg(jsonb_build_object('stake_cents', x.stake_cents, 'blocks', x.blocks, 'closed', x.closed,
				'size', x.size, 'handed_out', x.handed_out, 'sold', x.sold, 'voided', x.voided) ORDER BY x.stake_cents)
			FROM (SELECT bl.stake_cents, count(*) AS blocks, count(bl.closed_at) AS closed, sum(c.size) AS size,
			             sum(c.handed_out) AS handed_out, sum(c.sold) AS sold, sum(c.voided) AS voided
			        FROM blocks bl JOIN sf_block_progress() c ON c.block_id = bl.id
			       GROUP BY bl.stake_cents) x), '[]'::jsonb))
$$;

REVOKE ALL ON FUNCTION sf_count_sales(), sf_total_block(), sf_block_progress() FROM PUBLIC;
REVOKE ALL ON block_totals FROM PUBLIC;
