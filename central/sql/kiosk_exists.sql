-- Whether kiosk id $1 or its login role $2 is already taken.
SELECT EXISTS (SELECT 1 FROM kiosks WHERE id = $1) OR EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $2)
