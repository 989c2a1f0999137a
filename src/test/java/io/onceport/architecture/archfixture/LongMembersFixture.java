package io.onceport.architecture.archfixture;

import java.util.function.IntSupplier;

/**
 * Deliberately long members, read only by SizeLimitsTest to show the size rule reports a method
 * over 50 lines without a reason and a class over its limit without one. Never called.
 */
public final class LongMembersFixture {
  private LongMembersFixture() {}

  static int fiftyOneLinesWithoutAReason() {
    int total = 0;
    total += 0;
    total += 1;
    total += 2;
    total += 3;
    total += 4;
    total += 5;
    total += 6;
    total += 7;
    total += 8;
    total += 9;
    total += 10;
    total += 11;
    total += 12;
    total += 13;
    total += 14;
    total += 15;
    total += 16;
    total += 17;
    total += 18;
    total += 19;
    total += 20;
    total += 21;
    total += 22;
    total += 23;
    total += 24;
    total += 25;
    total += 26;
    total += 27;
    total += 28;
    total += 29;
    total += 30;
    total += 31;
    total += 32;
    total += 33;
    total += 34;
    total += 35;
    total += 36;
    total += 37;
    total += 38;
    total += 39;
    total += 40;
    total += 41;
    total += 42;
    total += 43;
    total += 44;
    total += 45;
    total += 46;
    return total;
  }

  /** Long because: a fixture must be one line over the limit. */
  static int fiftyOneLinesWithAReason() {
    int total = 0;
    total += 0;
    total += 1;
    total += 2;
    total += 3;
    total += 4;
    total += 5;
    total += 6;
    total += 7;
    total += 8;
    total += 9;
    total += 10;
    total += 11;
    total += 12;
    total += 13;
    total += 14;
    total += 15;
    total += 16;
    total += 17;
    total += 18;
    total += 19;
    total += 20;
    total += 21;
    total += 22;
    total += 23;
    total += 24;
    total += 25;
    total += 26;
    total += 27;
    total += 28;
    total += 29;
    total += 30;
    total += 31;
    total += 32;
    total += 33;
    total += 34;
    total += 35;
    total += 36;
    total += 37;
    total += 38;
    total += 39;
    total += 40;
    total += 41;
    total += 42;
    total += 43;
    total += 44;
    total += 45;
    total += 46;
    return total;
  }

  static int fiftyLines() {
    int total = 0;
    total += 0;
    total += 1;
    total += 2;
    total += 3;
    total += 4;
    total += 5;
    total += 6;
    total += 7;
    total += 8;
    total += 9;
    total += 10;
    total += 11;
    total += 12;
    total += 13;
    total += 14;
    total += 15;
    total += 16;
    total += 17;
    total += 18;
    total += 19;
    total += 20;
    total += 21;
    total += 22;
    total += 23;
    total += 24;
    total += 25;
    total += 26;
    total += 27;
    total += 28;
    total += 29;
    total += 30;
    total += 31;
    total += 32;
    total += 33;
    total += 34;
    total += 35;
    total += 36;
    total += 37;
    total += 38;
    total += 39;
    total += 40;
    total += 41;
    total += 42;
    total += 43;
    total += 44;
    total += 45;
    return total;
  }

  @SuppressWarnings(value = {"unused", "rawtypes"})
  static String bracesInsideLiteralsAndNestedBodies(
      int x) {
    String open = "{{{ not a block";
    char brace = '{';
    // } a comment brace
    /* } another { */
    String block = """
        } { a text block \""" }
        """;
    IntSupplier lambda = () -> { return x; };
    Object anonymous = new Object() { @Override public String toString() { return "}"; } };
    return open + brace + block + lambda.getAsInt() + anonymous;
  }

  /** A nested type's members are measured too. */
  static final class Nested {
    private Nested() {}

    static int nestedFiftyOneLines() {
      int total = 0;
      total += 0;
      total += 1;
      total += 2;
      total += 3;
      total += 4;
      total += 5;
      total += 6;
      total += 7;
      total += 8;
      total += 9;
      total += 10;
      total += 11;
      total += 12;
      total += 13;
      total += 14;
      total += 15;
      total += 16;
      total += 17;
      total += 18;
      total += 19;
      total += 20;
      total += 21;
      total += 22;
      total += 23;
      total += 24;
      total += 25;
      total += 26;
      total += 27;
      total += 28;
      total += 29;
      total += 30;
      total += 31;
      total += 32;
      total += 33;
      total += 34;
      total += 35;
      total += 36;
      total += 37;
      total += 38;
      total += 39;
      total += 40;
      total += 41;
      total += 42;
      total += 43;
      total += 44;
      total += 45;
      total += 46;
      return total;
    }

  }
}
