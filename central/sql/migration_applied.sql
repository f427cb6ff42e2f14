-- Whether migration $1 is already applied (central.go's runner).
SELECT EXISTS (SELECT 1 FROM schema_migrations WHERE version = $1)
