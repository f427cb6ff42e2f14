-- A registered kiosk and its login role.
INSERT INTO kiosks (id, role) VALUES ($1, $2) RETURNING created_at
