-- Each kiosk's activity per day of the session's time zone (the central's
-- TimeZone setting): units sold, stakes taken and prizes won from its sales;
-- cash-in (credit), demo funds (grant) and cash-out (payout) from its
-- ledger movements (a sale's own movement is the sales' figures again).
-- Days by the kiosk's clock at the sale or movement. $1, $2: the first and
-- last day, NULL for no bound.
WITH s AS (
	SELECT kiosk, (sold_at AT TIME ZONE current_setting('TimeZone'))::date AS day,
	       count(*) AS units, sum(stake_cents) AS stakes, sum(prize_cents) AS prizes
	  FROM sales
	 WHERE ($1::date IS NULL OR sold_at >= $1::date) AND ($2::date IS NULL OR sold_at < $2::date + 1)
	 GROUP BY 1, 2
), m AS (
	SELECT kiosk, (at AT TIME ZONE current_setting('TimeZone'))::date AS day,
	       sum(credit_cents - debit_cents) FILTER (WHERE kind = 'credit') AS credits,
	       sum(credit_cents - debit_cents) FILTER (WHERE kind = 'grant') AS grants,
	       sum(debit_cents - credit_cents) FILTER (WHERE kind = 'payout') AS payouts
	  FROM movements
	 WHERE kind <> 'sale' AND ($1::date IS NULL OR at >= $1::date) AND ($2::date IS NULL OR at < $2::date + 1)
	 GROUP BY 1, 2
)
SELECT day, kiosk, coalesce(s.units, 0)::bigint AS units,
       coalesce(s.stakes, 0)::bigint AS stake_cents, coalesce(s.prizes, 0)::bigint AS prize_cents,
       coalesce(m.credits, 0)::bigint AS credit_cents, coalesce(m.grants, 0)::bigint AS grant_cents,
       coalesce(m.payouts, 0)::bigint AS payout_cents
  FROM s FULL JOIN m USING (kiosk, day)
 ORDER BY day, kiosk
