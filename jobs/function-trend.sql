-- One function's share of the fleet's CPU samples, day by day: is it growing? Self (the function
-- itself, inlined code included) and total (with what it calls), as a share of each day's samples.
-- A function is matched by name, with SQL LIKE patterns allowed ('%compress%').
-- Run: jobs/sql -d function='NAME' [-d output=...] [-d format=gperftools -d kind=sample] jobs/function-trend.sql
CREATE OR REPLACE TEMPORARY VIEW functions AS
SELECT * FROM parquet.`${output:-target/fleet-output}/functions`
WHERE format = '${format:-gperftools}' AND kind = '${kind:-sample}';

CREATE OR REPLACE TEMPORARY VIEW days AS
SELECT date, sum(self_count) AS day_total FROM functions GROUP BY date;

CREATE OR REPLACE TEMPORARY VIEW matched AS
SELECT date, function, sum(self_count) AS self_count, sum(total_count) AS total_count
FROM functions
WHERE function LIKE '${function}'
GROUP BY date, function;

-- Every day for every matched function: a day without it shows 0, so that a function that
-- appeared (or went away) shows as growing from (or shrinking to) nothing, not as one lone day.
SELECT d.date,
       n.function,
       coalesce(m.self_count, 0)                                  AS self_count,
       round(100 * coalesce(m.self_count, 0) / d.day_total, 3)    AS self_pct,
       coalesce(m.total_count, 0)                                 AS total_count,
       round(100 * coalesce(m.total_count, 0) / d.day_total, 3)   AS total_pct
FROM days d
CROSS JOIN (SELECT DISTINCT function FROM matched) n
LEFT JOIN matched m ON m.date = d.date AND m.function = n.function
ORDER BY n.function, d.date;
