-- A registered kiosk and its login role; its call key (migrations/0011)
-- drawn by the database.
INSERT INTO kiosks (id, role) VALUES ($1, $2) RETURNING created_at, encode(call_key, 'hex')
