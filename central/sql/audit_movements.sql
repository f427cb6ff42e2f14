-- Every synced ledger movement, for the audit.
SELECT kiosk, seq, kind, debit_cents, credit_cents FROM movements
