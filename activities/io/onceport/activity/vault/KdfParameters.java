package io.onceport.activity.vault;

/**
 * Argon2id cost parameters, recorded in the vault header so a vault opens with the parameters it
 * was created with. The defaults (64 MiB, 3 passes, 1 lane) cost well under a second on a small
 * machine; tests pass {@link #forTests()}.
 */
public record KdfParameters(int memoryKib, int iterations, int parallelism) {
  /** Upper bounds applied when reading a header, so a damaged header cannot demand 4 TiB of memory. */
  static final int MAX_MEMORY_KIB = 4 * 1024 * 1024;

  static final int MAX_ITERATIONS = 64;
  static final int MAX_PARALLELISM = 16;

  public static final KdfParameters DEFAULT = new KdfParameters(64 * 1024, 3, 1);

  public KdfParameters {
    if (parallelism < 1 || parallelism > MAX_PARALLELISM) {
      throw new IllegalArgumentException("Invalid Argon2 parallelism: " + parallelism);
    }
    if (memoryKib < 8 * parallelism || memoryKib > MAX_MEMORY_KIB) {
      throw new IllegalArgumentException("Invalid Argon2 memory: " + memoryKib + " KiB");
    }
    if (iterations < 1 || iterations > MAX_ITERATIONS) {
      throw new IllegalArgumentException("Invalid Argon2 iterations: " + iterations);
    }
  }

  /** Cheap parameters for tests only: a derivation takes milliseconds. */
  public static KdfParameters forTests() {
    return new KdfParameters(256, 1, 1);
  }

  @Override
  public String toString() {
    return "argon2id m=" + memoryKib + "KiB t=" + iterations + " p=" + parallelism;
  }
}
