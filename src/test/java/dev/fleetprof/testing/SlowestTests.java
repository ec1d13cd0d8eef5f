package dev.fleetprof.testing;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import org.xml.sax.helpers.DefaultHandler;

/**
 * Prints the slowest tests and test classes of a build, from the surefire and failsafe XML reports
 * under the build directory, and writes the same to {@code slowest-tests.txt} there: where to look
 * first when the suite gets slow. Run by {@code mvn verify} (exec-maven-plugin); missing or
 * unreadable reports are skipped, never an error.
 */
public final class SlowestTests {
  private static final int SHOWN = 15;

  private record Timed(String name, double seconds) {}

  private SlowestTests() {}

  /** {@code args[0]}: the build directory (target/). */
  public static void main(String[] args) throws IOException {
    Path target = Path.of(args.length > 0 ? args[0] : "target");
    List<Timed> tests = new ArrayList<>();
    List<Timed> classes = new ArrayList<>();
    for (String reports : List.of("surefire-reports", "failsafe-reports")) {
      Path dir = target.resolve(reports);
      if (!Files.isDirectory(dir)) {
        continue;
      }
      try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "TEST-*.xml")) {
        for (Path file : files) {
          read(file, tests, classes);
        }
      }
    }
    StringBuilder out = new StringBuilder();
    if (tests.isEmpty()) {
      out.append("No test reports under ").append(target).append('\n');
    } else {
      table(out, "slowest tests", tests);
      table(out, "slowest test classes (tests plus the class's setup)", classes);
    }
    System.out.print(out);
    if (Files.isDirectory(target)) {
      Files.writeString(target.resolve("slowest-tests.txt"), out);
    }
  }

  private static void table(StringBuilder out, String title, List<Timed> timed) {
    double total = timed.stream().mapToDouble(Timed::seconds).sum();
    out.append(
        String.format(
            Locale.ROOT,
            "The %d %s of %d (%.0f s in all):%n",
            Math.min(SHOWN, timed.size()),
            title,
            timed.size(),
            total));
    timed.stream()
        .sorted(Comparator.comparingDouble(Timed::seconds).reversed())
        .limit(SHOWN)
        .forEach(
            t -> out.append(String.format(Locale.ROOT, "%9.1f s  %s%n", t.seconds(), t.name())));
  }

  private static void read(Path file, List<Timed> tests, List<Timed> classes) {
    try {
      DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
      factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
      DocumentBuilder builder = factory.newDocumentBuilder();
      // Throws on a malformed report without also printing it to stderr.
      builder.setErrorHandler(new DefaultHandler());
      Document doc = builder.parse(file.toFile());
      Element suite = doc.getDocumentElement();
      classes.add(new Timed(suite.getAttribute("name"), seconds(suite.getAttribute("time"))));
      NodeList cases = suite.getElementsByTagName("testcase");
      for (int i = 0; i < cases.getLength(); i++) {
        Element c = (Element) cases.item(i);
        tests.add(
            new Timed(
                c.getAttribute("classname") + "." + c.getAttribute("name"),
                seconds(c.getAttribute("time"))));
      }
    } catch (Exception e) {
      System.out.println("Skipped " + file + ": " + e);
    }
  }

  private static double seconds(String time) {
    try {
      // A grouping comma ("1,234.5") is read as none.
      return Double.parseDouble(time.replace(",", ""));
    } catch (NumberFormatException e) {
      return 0;
    }
  }
}
