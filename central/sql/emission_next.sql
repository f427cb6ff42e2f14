-- The next emission number (under emission_lock).
SELECT coalesce(max(id), 0) + 1 FROM emissions
