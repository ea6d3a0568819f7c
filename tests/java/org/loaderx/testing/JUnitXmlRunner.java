package org.loaderx.testing;

import java.io.FileWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import org.junit.runner.Description;
import org.junit.runner.JUnitCore;
import org.junit.runner.Result;
import org.junit.runner.notification.Failure;
import org.junit.runner.notification.RunListener;

/**
 * Runs JUnit 4 test classes for Bazel: prints each failure, writes a JUnit
 * XML report to $XML_OUTPUT_FILE so cases are counted one by one, prints
 * "java: N passed, M failed", and exits non-zero on a failure or when no
 * test ran.
 */
public final class JUnitXmlRunner {
  private static final class Case {
    final Description description;
    Failure failure;
    boolean ignored;
    long startNanos = System.nanoTime();
    long nanos;

    Case(Description description) {
      this.description = description;
    }
  }

  private JUnitXmlRunner() {}

  public static void main(String[] args) throws Exception {
    List<Class<?>> classes = new ArrayList<>();
    for (String name : args) {
      classes.add(Class.forName(name));
    }
    List<Case> cases = new ArrayList<>();
    JUnitCore core = new JUnitCore();
    core.addListener(
        new RunListener() {
          Case current;

          @Override
          public void testStarted(Description description) {
            current = new Case(description);
            cases.add(current);
          }

          @Override
          public void testFinished(Description description) {
            current.nanos = System.nanoTime() - current.startNanos;
          }

          @Override
          public void testFailure(Failure failure) {
            if (current != null && failure.getDescription().equals(current.description)) {
              current.failure = failure;
            } else {
              Case broken = new Case(failure.getDescription());
              broken.failure = failure;
              cases.add(broken);
            }
            System.out.println("FAILED " + failure.getTestHeader());
            System.out.println(failure.getTrace());
          }

          @Override
          public void testIgnored(Description description) {
            Case skipped = new Case(description);
            skipped.ignored = true;
            cases.add(skipped);
          }
        });
    Result result = core.run(classes.toArray(new Class<?>[0]));

    int failed = 0;
    int skipped = 0;
    for (Case c : cases) {
      if (c.failure != null) {
        failed++;
      } else if (c.ignored) {
        skipped++;
      }
    }
    int passed = cases.size() - failed - skipped;
    writeXml(cases, failed, skipped);
    System.out.println("java: " + passed + " passed, " + failed + " failed"
        + (skipped > 0 ? ", " + skipped + " skipped" : ""));
    System.exit(result.wasSuccessful() && passed > 0 ? 0 : 1);
  }

  private static void writeXml(List<Case> cases, int failed, int skipped) throws IOException {
    String path = System.getenv("XML_OUTPUT_FILE");
    if (path == null || path.isEmpty()) {
      return;
    }
    try (PrintWriter out = new PrintWriter(new FileWriter(path))) {
      out.println("<?xml version=\"1.0\" encoding=\"UTF-8\"?>");
      out.printf("<testsuites><testsuite name=\"java\" tests=\"%d\" failures=\"%d\" skipped=\"%d\">%n",
          cases.size(), failed, skipped);
      for (Case c : cases) {
        out.printf("<testcase classname=\"%s\" name=\"%s\" time=\"%.3f\">",
            escape(c.description.getClassName()), escape(c.description.getMethodName()),
            c.nanos / 1e9);
        if (c.failure != null) {
          out.printf("<failure message=\"%s\">%s</failure>",
              escape(String.valueOf(c.failure.getMessage())), escape(c.failure.getTrace()));
        } else if (c.ignored) {
          out.print("<skipped/>");
        }
        out.println("</testcase>");
      }
      out.println("</testsuite></testsuites>");
    }
  }

  private static String escape(String text) {
    if (text == null) {
      return "";
    }
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        .replace("\"", "&quot;");
  }
}
