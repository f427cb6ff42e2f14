-- Block partition $1 of sales (migrations/0013): NULL when not attached,
-- else whether a concurrent detach of it was interrupted.
SELECT (SELECT i.inhdetachpending FROM pg_inherits i WHERE i.inhparent = 'sales'::regclass AND i.inhrelid = to_regclass($1))
