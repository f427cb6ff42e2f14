-- Every sale a push refused (never merged), for the audit.
SELECT kiosk, seq, ticket, reason FROM sale_conflicts ORDER BY id
