-- The CREATE ROLE statement of a kiosk: login role $1, its password given
-- as the SCRAM verifier $2 (never the password itself, which would reach
-- the server's statement log), member of group $3. Quoted by format(), as
-- utility statements take no parameters.
SELECT format('CREATE ROLE %I LOGIN PASSWORD %L IN ROLE %I', $1::text, $2::text, $3::text)
