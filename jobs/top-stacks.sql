-- The heaviest call stacks of one day, fleet-wide, from the fleet job's output, their frames
-- named: each frame's functions (inlined ones included, innermost first), or module+0xoffset
-- (the module's base name) where the binary was not found; leaf first.
-- One measure: CPU time by default (seconds), or -d measure=calls, ...
-- Run: jobs/sql [-d output=target/fleet-output] [-d date=YYYY-MM-DD] [-d measure=cpu] [-d limit=20] jobs/top-stacks.sql
-- (date defaults to the latest date in the output with the measure).
CREATE OR REPLACE TEMPORARY VIEW stacks AS
SELECT * FROM fleet_stacks
WHERE measure = '${measure:-cpu}';

CREATE OR REPLACE TEMPORARY VIEW day AS
SELECT * FROM stacks
WHERE date = coalesce(try_cast('${date:-latest}' AS DATE), (SELECT max(date) FROM stacks));

CREATE OR REPLACE TEMPORARY VIEW top AS
SELECT monotonically_increasing_id() AS id, *
FROM (SELECT date, format, frames, unit,
             sum(value) AS value, sum(count) AS count, sum(profiles) AS profiles,
             max(hosts) AS hosts
      FROM day
      GROUP BY date, format, frames, unit
      ORDER BY value DESC
      LIMIT ${limit:-20});

-- A location's inline chain, innermost first, from locations/ (the names the job found).
CREATE OR REPLACE TEMPORARY VIEW names AS
SELECT module, offset, first(lines, true) AS lines
FROM fleet_locations
WHERE date = (SELECT max(date) FROM day) AND lines IS NOT NULL
GROUP BY module, offset;

-- Each top stack's frames by name (the view named: id, stack).
SOURCE views/named-stacks.sql;

SELECT t.date,
       t.format,
       round(t.value / CASE t.unit WHEN 'nanoseconds' THEN 1000000000 ELSE 1 END, 3) AS value,
       round(100 * t.value / (SELECT sum(value) FROM day), 2)                          AS pct,
       CASE t.unit WHEN 'nanoseconds' THEN 's' ELSE t.unit END                         AS unit,
       t.count,
       t.hosts,
       t.profiles,
       n.stack
FROM top t JOIN named n ON t.id = n.id
ORDER BY t.value DESC, t.count DESC;
