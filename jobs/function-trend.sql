-- One function's share of the fleet's CPU samples, day by day: is it growing? Self (the function
-- itself, inlined code included) and total (with what it calls), as a share of each day's samples.
-- A function is matched by name, with SQL LIKE patterns allowed ('%compress%').
-- Run: jobs/sql -d function='NAME' [-d output=...] [-d format=gperftools -d kind=sample] jobs/function-trend.sql
CREATE OR REPLACE TEMPORARY VIEW functions AS
SELECT * FROM parquet.`${output:-target/fleet-output}/functions`
WHERE format = '${format:-gperftools}' AND kind = '${kind:-sample}';

CREATE OR REPLACE TEMPORARY VIEW days AS
SELECT date, sum(self_count) AS day_total FROM functions GROUP BY date;

SELECT f.date,
       f.function,
       sum(f.self_count)                                       AS self_count,
       round(100 * sum(f.self_count) / max(d.day_total), 3)    AS self_pct,
       sum(f.total_count)                                      AS total_count,
       round(100 * sum(f.total_count) / max(d.day_total), 3)   AS total_pct
FROM functions f JOIN days d ON f.date = d.date
WHERE f.function LIKE '${function}'
GROUP BY f.date, f.function
ORDER BY f.function, f.date;
