package dev.fleetprof.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A script's statements: split as spark-sql splits them, {@code SOURCE FILE} read in place. */
class SqlStatementsTest {
  @TempDir Path dir;

  @Test
  void splitsOnSemicolonsOutsideQuotesAndComments() {
    assertEquals(
        List.of("SELECT ';' AS a", "SELECT 2"),
        SqlStatements.split("-- a comment; with a semicolon\nSELECT ';' AS a;\n\nSELECT 2;\n"));
  }

  @Test
  void sourceRunsTheFileInPlaceRelativeToTheIncludingScript() throws Exception {
    Files.createDirectories(dir.resolve("views"));
    Files.writeString(dir.resolve("views/v.sql"), "CREATE VIEW v AS SELECT 1;\nSOURCE 'w.sql';\n");
    Files.writeString(dir.resolve("views/w.sql"), "CREATE VIEW w AS SELECT 2;");
    Files.writeString(dir.resolve("main.sql"), "SELECT 0;\nsource views/v.sql;\nSELECT 3;\n");
    assertEquals(
        List.of("SELECT 0", "CREATE VIEW v AS SELECT 1", "CREATE VIEW w AS SELECT 2", "SELECT 3"),
        SqlStatements.read(dir.resolve("main.sql")));
  }

  @Test
  void aCycleOrAMissingFileIsNamed() throws Exception {
    Files.writeString(dir.resolve("a.sql"), "SOURCE b.sql;");
    Files.writeString(dir.resolve("b.sql"), "SOURCE a.sql;");
    IllegalArgumentException cycle =
        assertThrows(
            IllegalArgumentException.class, () -> SqlStatements.read(dir.resolve("a.sql")));
    assertTrue(cycle.getMessage().startsWith("SOURCE cycle"), cycle.getMessage());
    Files.writeString(dir.resolve("c.sql"), "SOURCE missing.sql;");
    IllegalArgumentException missing =
        assertThrows(
            IllegalArgumentException.class, () -> SqlStatements.read(dir.resolve("c.sql")));
    assertTrue(
        missing.getMessage().contains("missing.sql") && missing.getMessage().contains("c.sql"),
        missing.getMessage());
  }

  @Test
  void theSqlJobsShareOneDefinitionOfTheirPerHostView() {
    for (String job : List.of("top-functions.sql", "diff-dates.sql")) {
      List<String> statements = SqlStatements.read(Path.of("jobs", job));
      assertEquals(
          1, statements.stream().filter(s -> s.contains("VIEW host_functions AS")).count(), job);
    }
  }
}
