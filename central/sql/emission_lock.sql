-- Serialises emission creation, so that two draw distinct numbers.
LOCK TABLE emissions IN EXCLUSIVE MODE
