-- One function's share of the fleet's CPU time (or -d measure=...), day by day: is it growing?
-- Self (the function itself, inlined code included) and total (with what it calls), as a share of
-- each day's total. A function is matched by name, with SQL LIKE patterns allowed ('%compress%').
-- Run: jobs/sql -d function='NAME' [-d output=...] [-d measure=cpu] [-d format=all] jobs/function-trend.sql
CREATE OR REPLACE TEMPORARY VIEW functions AS
SELECT * FROM fleet_functions
WHERE measure = '${measure:-cpu}' AND ('${format:-all}' = 'all' OR format = '${format:-all}');

CREATE OR REPLACE TEMPORARY VIEW days AS
SELECT date, sum(self_value) AS day_total FROM functions GROUP BY date;

CREATE OR REPLACE TEMPORARY VIEW matched AS
SELECT date, function, unit,
       sum(self_value) AS self_value, sum(total_value) AS total_value,
       sum(self_count) AS self_count, sum(total_count) AS total_count
FROM functions
WHERE function LIKE '${function}'
GROUP BY date, function, unit;

-- Every day for every matched function: a day without it shows 0, so that a function that
-- appeared (or went away) shows as growing from (or shrinking to) nothing, not as one lone day.
SELECT d.date,
       n.function,
       round(coalesce(m.self_value, 0) / CASE n.unit WHEN 'nanoseconds' THEN 1000000000 ELSE 1 END, 3)
                                                                  AS self,
       round(100 * coalesce(m.self_value, 0) / d.day_total, 3)    AS self_pct,
       round(coalesce(m.total_value, 0) / CASE n.unit WHEN 'nanoseconds' THEN 1000000000 ELSE 1 END, 3)
                                                                  AS total,
       round(100 * coalesce(m.total_value, 0) / d.day_total, 3)   AS total_pct,
       CASE n.unit WHEN 'nanoseconds' THEN 's' ELSE n.unit END    AS unit,
       coalesce(m.self_count, 0)                                  AS self_count,
       coalesce(m.total_count, 0)                                 AS total_count
FROM days d
CROSS JOIN (SELECT DISTINCT function, unit FROM matched) n
LEFT JOIN matched m ON m.date = d.date AND m.function = n.function
ORDER BY n.function, d.date;
