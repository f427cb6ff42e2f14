-- Every break recorded in the player log, as it was recorded (a break
-- made longer keeps its start), for the audit.
SELECT player, (detail ->> 'since')::timestamptz AS since, (detail ->> 'until')::timestamptz AS until,
       (detail ->> 'indefinite')::boolean AS indefinite
  FROM player_log
 WHERE kind = 'break'
 ORDER BY player, id
