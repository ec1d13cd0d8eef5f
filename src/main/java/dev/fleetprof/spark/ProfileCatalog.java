package dev.fleetprof.spark;

import dev.fleetprof.spark.listing.FileLister;
import dev.fleetprof.spark.listing.ProfileFileIndex;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.catalog.Column;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.NamespaceChange;
import org.apache.spark.sql.connector.catalog.SupportsNamespaces;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableCatalog;
import org.apache.spark.sql.connector.catalog.TableChange;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * A read-only catalog whose tables are paths: registered as {@code
 * spark.sql.catalog.profile=dev.fleetprof.spark.ProfileCatalog}, it makes {@code SELECT * FROM
 * profile.`/data/profiles/date=2026-11-20`} read that path with the {@code profile} source, as
 * {@code spark.read().format("profile").load(path)} does. Spark resolves {@code profile.`path`}
 * through a catalog of that name first; without one it only tries sources with a V1 file format,
 * which {@code profile} is not.
 *
 * <p>Read options: the catalog's own settings ({@code spark.sql.catalog.profile.mode=FAILFAST}) are
 * every table's defaults, and a query's {@code WITH ('mode'='DROPMALFORMED')} overrides them. A
 * table name is the path itself, without a namespace; the catalog lists no tables and no
 * namespaces, and creates, alters and drops nothing.
 */
public final class ProfileCatalog implements TableCatalog, SupportsNamespaces {
  private String name = ProfileDataSource.SHORT_NAME;

  /** The catalog's settings: read options every table starts from. */
  private Map<String, String> defaults = Map.of();

  @Override
  public void initialize(String name, CaseInsensitiveStringMap options) {
    this.name = name;
    Map<String, String> kept = new LinkedHashMap<>();
    for (Map.Entry<String, String> e : options.asCaseSensitiveMap().entrySet()) {
      String key = e.getKey().toLowerCase(Locale.ROOT);
      if (key.equals("path") || key.equals("paths")) {
        throw new IllegalArgumentException(
            "catalog "
                + name
                + ": spark.sql.catalog."
                + name
                + "."
                + e.getKey()
                + " cannot be set: the path of each table is its name, e.g. SELECT * FROM "
                + name
                + ".`/data/profiles`");
      }
      kept.put(e.getKey(), e.getValue());
    }
    this.defaults = Map.copyOf(kept);
  }

  @Override
  public String name() {
    return name;
  }

  /**
   * The profiles at the path the identifier names, listed now (a later query lists again, as a new
   * {@code load} does).
   *
   * @throws IllegalArgumentException for a name with a namespace, or a path where nothing exists
   *     (naming the path; a {@code NoSuchTableException} would make Spark report that {@code
   *     profile} cannot be queried directly, which hides the real problem)
   */
  @Override
  public Table loadTable(Identifier ident) {
    String path = path(ident);
    Map<String, String> options = new LinkedHashMap<>(defaults);
    options.put("path", path);
    CaseInsensitiveStringMap resolved = new CaseInsensitiveStringMap(options);
    ReadOptions read = new ReadOptions(resolved);
    ProfileFileIndex index;
    try {
      index = ProfileFileIndex.list(SparkSession.active(), read, resolved);
    } catch (UncheckedIOException e) {
      if (e.getCause() instanceof FileNotFoundException) {
        throw new IllegalArgumentException(
            "catalog " + name + ": path does not exist: " + path + " (" + e.getMessage() + ")", e);
      }
      throw e;
    }
    return new ProfileTable(options, read, index);
  }

  /**
   * Whether something exists at the path (without listing it): what Spark asks before {@code CREATE
   * TABLE}, so that creating reports this catalog as read-only rather than a missing path.
   */
  @Override
  public boolean tableExists(Identifier ident) {
    if (ident.namespace().length > 0 || ident.name().isEmpty()) {
      return false;
    }
    Map<String, String> options = new LinkedHashMap<>(defaults);
    options.put("path", ident.name());
    try {
      FileLister.checkExists(
          List.of(ident.name()),
          HadoopConf.forRead(SparkSession.active(), new CaseInsensitiveStringMap(options)));
      return true;
    } catch (FileNotFoundException e) {
      return false;
    } catch (IOException e) {
      throw new UncheckedIOException(e.getMessage(), e);
    }
  }

  /** The path an identifier names: its name, when it has no namespace. */
  private String path(Identifier ident) {
    if (ident.namespace().length > 0) {
      throw new IllegalArgumentException(
          "catalog "
              + name
              + ": "
              + quoted(ident)
              + " has a namespace; a table of this catalog is a path named without one, in"
              + " backquotes: "
              + name
              + ".`/data/profiles/date=2026-11-20`");
    }
    if (ident.name().isEmpty()) {
      throw new IllegalArgumentException("catalog " + name + ": the path is empty");
    }
    return ident.name();
  }

  private static String quoted(Identifier ident) {
    String[] parts = Arrays.copyOf(ident.namespace(), ident.namespace().length + 1);
    parts[parts.length - 1] = ident.name();
    return Arrays.stream(parts)
        .map(p -> "`" + p.replace("`", "``") + "`")
        .collect(Collectors.joining("."));
  }

  /** Nothing to list: any path is a table, none is registered. */
  @Override
  public Identifier[] listTables(String[] namespace) {
    return new Identifier[0];
  }

  @Override
  @SuppressWarnings(
      "deprecation") // 4.1 prefers createTable(Identifier, TableInfo); its default asks this
  public Table createTable(
      Identifier ident, Column[] columns, Transform[] partitions, Map<String, String> properties) {
    throw readOnly("CREATE TABLE " + quoted(ident));
  }

  /**
   * The same, as Spark 3.5 asks (there it is the one abstract variant; Spark 4 deprecates it and
   * asks the one above).
   */
  @Override
  @SuppressWarnings("deprecation")
  public Table createTable(
      Identifier ident, StructType schema, Transform[] partitions, Map<String, String> properties) {
    throw readOnly("CREATE TABLE " + quoted(ident));
  }

  @Override
  public Table alterTable(Identifier ident, TableChange... changes) {
    throw readOnly("ALTER TABLE " + quoted(ident));
  }

  @Override
  public boolean dropTable(Identifier ident) {
    throw readOnly("DROP TABLE " + quoted(ident));
  }

  @Override
  public void renameTable(Identifier oldIdent, Identifier newIdent) {
    throw readOnly("RENAME TABLE " + quoted(oldIdent));
  }

  /** No namespaces: table names are paths without one. */
  @Override
  public String[][] listNamespaces() {
    return new String[0][];
  }

  @Override
  public String[][] listNamespaces(String[] namespace) {
    return new String[0][];
  }

  /** Only the root exists (so that {@code USE profile} works); it has no properties. */
  @Override
  public Map<String, String> loadNamespaceMetadata(String[] namespace) {
    if (namespace.length > 0) {
      throw new IllegalArgumentException(
          "catalog "
              + name
              + " has no namespaces: a table is a path named without one, e.g. "
              + name
              + ".`/data/profiles`");
    }
    return Map.of();
  }

  @Override
  public void createNamespace(String[] namespace, Map<String, String> metadata) {
    throw readOnly("CREATE NAMESPACE");
  }

  @Override
  public void alterNamespace(String[] namespace, NamespaceChange... changes) {
    throw readOnly("ALTER NAMESPACE");
  }

  @Override
  public boolean dropNamespace(String[] namespace, boolean cascade) {
    throw readOnly("DROP NAMESPACE");
  }

  private UnsupportedOperationException readOnly(String what) {
    return new UnsupportedOperationException(
        "catalog " + name + " is read-only (its tables are profile paths): " + what);
  }
}
