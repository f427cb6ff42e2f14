-- Every synced ledger movement, in each kiosk's order, for the audit.
SELECT kiosk, seq, kind, debit_cents, credit_cents FROM movements ORDER BY kiosk, seq
