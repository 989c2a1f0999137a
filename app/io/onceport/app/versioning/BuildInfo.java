package io.onceport.app.versioning;

import io.onceport.workflow.WorkflowImplementations;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;

/**
 * What this build is: its version and the commit it was built from, written into {@code
 * git.properties} beside this class by the build (git-commit-id-maven-plugin). A worker's default
 * Worker Deployment build id is made from them ({@link #defaultBuildId()}): a pinned execution runs
 * only on workers of the build id that started it, so two builds with different workflow code
 * must never share one.
 */
public final class BuildInfo {
  private static final String WORKFLOW_PACKAGE = "io/onceport/workflow/";
  private static final BuildInfo CURRENT = load();

  private final String version;
  private final String commit;

  BuildInfo(String version, String commit) {
    this.version = version == null || version.isBlank() ? "dev" : version.strip();
    this.commit = commit == null || commit.isBlank() ? null : commit.strip();
  }

  /** This jar's build. */
  public static BuildInfo current() {
    return CURRENT;
  }

  public String version() {
    return version;
  }

  /** The abbreviated commit, or empty when the build had no git checkout (a source copy, a container build). */
  public Optional<String> commit() {
    return Optional.ofNullable(commit);
  }

  /**
   * {@code <version>+<commit>}, e.g. {@code 0.1.0-SNAPSHOT+8bb8254894}. Built without a commit, the
   * version alone could name two different builds, so the commit is replaced by a digest of the
   * compiled workflow code ({@code <version>+wf<digest>}): identical workflow code, identical id.
   */
  public String defaultBuildId() {
    return version + "+" + (commit != null ? commit : "wf" + workflowCodeDigest());
  }

  private static BuildInfo load() {
    Properties p = new Properties();
    try (InputStream in = BuildInfo.class.getResourceAsStream("git.properties")) {
      if (in != null) {
        p.load(in);
      }
    } catch (IOException e) {
      // No build information: the version falls back to "dev" and the commit to the workflow digest.
    }
    return new BuildInfo(p.getProperty("git.build.version"), p.getProperty("git.commit.id.abbrev"));
  }

  /** SHA-256 (first 10 hex digits) over the names and bytes of the compiled classes under {@code io/onceport/workflow/}. */
  static String workflowCodeDigest() {
    try {
      Path location = Path.of(WorkflowImplementations.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      if (Files.isDirectory(location)) {
        try (Stream<Path> files = Files.walk(location.resolve(WORKFLOW_PACKAGE))) {
          for (Path f : files.filter(Files::isRegularFile).sorted().toList()) {
            sha.update(location.relativize(f).toString().replace('\\', '/').getBytes(StandardCharsets.UTF_8));
            sha.update(Files.readAllBytes(f));
          }
        }
      } else {
        try (JarFile jar = new JarFile(location.toFile())) {
          List<JarEntry> entries = jar.stream().filter(e -> !e.isDirectory() && e.getName().startsWith(WORKFLOW_PACKAGE))
              .sorted(Comparator.comparing(JarEntry::getName)).toList();
          for (JarEntry e : entries) {
            sha.update(e.getName().getBytes(StandardCharsets.UTF_8));
            try (InputStream in = jar.getInputStream(e)) {
              sha.update(in.readAllBytes());
            }
          }
        }
      }
      return HexFormat.of().formatHex(sha.digest()).substring(0, 10);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read this build's workflow classes for its build id: " + e.getMessage(), e);
    } catch (URISyntaxException | NoSuchAlgorithmException e) {
      throw new IllegalStateException("cannot compute this build's workflow digest: " + e.getMessage(), e);
    }
  }
}
