package io.onceport.architecture;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * Measures a Java source file the way a reader does: the file's line count, and each method's (or
 * constructor's, or initializer's) length from the line of its name to the line of its closing
 * brace, with the javadoc written just before it.
 *
 * <p>A small lexer (comments, string and char literals, text blocks) and a brace tracker are
 * enough for that, and need no parser on the test classpath: a member is a brace block opened
 * directly in a type body that is neither a nested type nor a field initializer. Members of nested
 * and anonymous classes inside a method count towards that method, as a reader sees them.
 */
final class SourceSizes {
  /** The text a javadoc carries to excuse a long method or class; the reason follows it. */
  static final String MARKER = "Long because:";

  private SourceSizes() {}

  /** One method, constructor or initializer of a type body. */
  record Member(String name, int firstLine, int lastLine, String javadoc) {
    int length() {
      return lastLine - firstLine + 1;
    }

    boolean explained() {
      return javadoc.contains(MARKER);
    }
  }

  /** What a file holds: its lines, the javadoc of its first top-level type, and its members. */
  record Measured(int lines, String typeJavadoc, List<Member> members) {
    boolean typeExplained() {
      return typeJavadoc.contains(MARKER);
    }

    /** Whether the class javadoc's reason names this member ({@code {@link #name}} or {@code name}). */
    boolean typeExplains(Member m) {
      int at = typeJavadoc.indexOf(MARKER);
      return at >= 0 && typeJavadoc.substring(at).matches("(?s).*\\b" + java.util.regex.Pattern.quote(m.name()) + "\\b.*");
    }
  }

  private enum Kind { IDENT, PUNCT, LITERAL, JAVADOC }

  private record Token(Kind kind, String text, int line) {
    boolean is(String s) {
      return kind != Kind.JAVADOC && kind != Kind.LITERAL && text.equals(s);
    }
  }

  static Measured measure(String source) {
    List<Token> tokens = lex(source);
    int lines = (int) source.lines().count();
    return parse(tokens, lines);
  }

  /** A brace block being read: a type body (with what has been read of its next member) or any other block. */
  private static final class Frame {
    final boolean type;
    final Member pendingMember;
    final List<Token> pending = new ArrayList<>();
    String javadoc = "";

    Frame(boolean type, Member pendingMember) {
      this.type = type;
      this.pendingMember = pendingMember;
    }

    void reset() {
      pending.clear();
      javadoc = "";
    }
  }

  private static Measured parse(List<Token> tokens, int lines) {
    Deque<Frame> stack = new ArrayDeque<>();
    Frame unit = new Frame(true, null);
    stack.push(unit);
    String typeJavadoc = null;
    List<Member> members = new ArrayList<>();
    for (Token t : tokens) {
      Frame top = stack.peek();
      if (top.type && (t.is("{") || t.is("}")) && depth(top.pending) > 0) {
        // inside parentheses of a declaration: an annotation's array value, or a lambda in a field initializer
        top.pending.add(t);
      } else if (t.is("{")) {
        if (!top.type) {
          stack.push(new Frame(false, null));
          continue;
        }
        List<Token> decl = withoutAnnotations(top.pending);
        if (declaresType(decl)) {
          if (top == unit && typeJavadoc == null) {
            typeJavadoc = top.javadoc;
          }
          stack.push(new Frame(true, null));
        } else if (hasTopLevel(decl, "=")) {
          stack.push(new Frame(false, null));
        } else {
          stack.push(new Frame(false, member(decl, t, top.javadoc)));
        }
        top.reset();
      } else if (t.is("}")) {
        Frame done = stack.pop();
        if (stack.isEmpty()) {
          throw new IllegalArgumentException("unbalanced '}' at line " + t.line());
        }
        if (done.pendingMember != null) {
          Member m = done.pendingMember;
          members.add(new Member(m.name(), m.firstLine(), t.line(), m.javadoc()));
        }
        if (stack.peek().type) {
          stack.peek().reset();
        }
      } else if (top.type && t.kind() == Kind.JAVADOC) {
        top.javadoc = t.text();
      } else if (top.type && t.is(";") && depth(top.pending) == 0) {
        top.reset();
      } else if (top.type) {
        top.pending.add(t);
      }
    }
    if (stack.size() != 1) {
      throw new IllegalArgumentException("unbalanced braces: " + (stack.size() - 1) + " left open");
    }
    return new Measured(lines, typeJavadoc == null ? "" : typeJavadoc, List.copyOf(members));
  }

  private static int depth(List<Token> pending) {
    int d = 0;
    for (Token t : pending) {
      if (t.is("(")) {
        d++;
      } else if (t.is(")")) {
        d--;
      }
    }
    return d;
  }

  /** A method is named by the identifier before its first top-level {@code (}; a compact constructor by its last identifier. */
  private static Member member(List<Token> decl, Token brace, String javadoc) {
    for (int i = 1; i < decl.size(); i++) {
      if (decl.get(i).is("(") && decl.get(i - 1).kind() == Kind.IDENT) {
        Token name = decl.get(i - 1);
        return new Member(name.text(), name.line(), -1, javadoc);
      }
    }
    for (int i = decl.size() - 1; i >= 0; i--) {
      Token t = decl.get(i);
      if (t.kind() == Kind.IDENT && !t.text().equals("static")) {
        return new Member(t.text(), t.line(), -1, javadoc);
      }
    }
    return new Member("<init>", brace.line(), -1, javadoc);
  }

  private static boolean declaresType(List<Token> decl) {
    if (hasTopLevel(decl, "=")) {
      return false;
    }
    for (int i = 0; i < decl.size(); i++) {
      Token t = decl.get(i);
      if (t.is("class") || t.is("interface") || t.is("enum")) {
        return true;
      }
      if (t.is("record") && i + 2 < decl.size() && decl.get(i + 1).kind() == Kind.IDENT
          && (decl.get(i + 2).is("(") || decl.get(i + 2).is("<"))) {
        return true;
      }
    }
    return false;
  }

  private static boolean hasTopLevel(List<Token> decl, String punct) {
    int d = 0;
    for (Token t : decl) {
      if (t.is("(")) {
        d++;
      } else if (t.is(")")) {
        d--;
      } else if (d == 0 && t.is(punct)) {
        return true;
      }
    }
    return false;
  }

  /** Drops {@code @Name}, {@code @a.b.Name} and {@code @Name(...)} (but not {@code @interface}). */
  private static List<Token> withoutAnnotations(List<Token> pending) {
    List<Token> out = new ArrayList<>();
    int i = 0;
    while (i < pending.size()) {
      Token t = pending.get(i);
      if (t.is("@") && i + 1 < pending.size() && !pending.get(i + 1).is("interface")) {
        i += 2;
        while (i + 1 < pending.size() && pending.get(i).is(".") && pending.get(i + 1).kind() == Kind.IDENT) {
          i += 2;
        }
        if (i < pending.size() && pending.get(i).is("(")) {
          int d = 0;
          do {
            if (pending.get(i).is("(")) {
              d++;
            } else if (pending.get(i).is(")")) {
              d--;
            }
            i++;
          } while (d > 0 && i < pending.size());
        }
      } else {
        out.add(t);
        i++;
      }
    }
    return out;
  }

  private static List<Token> lex(String s) {
    List<Token> out = new ArrayList<>();
    int line = 1;
    int i = 0;
    int n = s.length();
    while (i < n) {
      char c = s.charAt(i);
      if (c == '\n') {
        line++;
        i++;
      } else if (Character.isWhitespace(c)) {
        i++;
      } else if (s.startsWith("//", i)) {
        while (i < n && s.charAt(i) != '\n') {
          i++;
        }
      } else if (s.startsWith("/*", i)) {
        int end = s.indexOf("*/", i + 2);
        if (end < 0) {
          throw new IllegalArgumentException("unterminated comment at line " + line);
        }
        String text = s.substring(i, end + 2);
        if (text.startsWith("/**") && !text.equals("/**/")) {
          out.add(new Token(Kind.JAVADOC, text, line));
        }
        line += count(text, '\n');
        i = end + 2;
      } else if (s.startsWith("\"\"\"", i)) {
        int j = i + 3;
        while (!s.startsWith("\"\"\"", j)) {
          if (j >= n) {
            throw new IllegalArgumentException("unterminated text block at line " + line);
          }
          j += s.charAt(j) == '\\' ? 2 : 1;
        }
        out.add(new Token(Kind.LITERAL, "\"\"\"", line));
        line += count(s.substring(i, j + 3), '\n');
        i = j + 3;
      } else if (c == '"' || c == '\'') {
        int j = i + 1;
        while (j < n && s.charAt(j) != c) {
          if (s.charAt(j) == '\n') {
            throw new IllegalArgumentException("unterminated literal at line " + line);
          }
          j += s.charAt(j) == '\\' ? 2 : 1;
        }
        out.add(new Token(Kind.LITERAL, String.valueOf(c), line));
        i = j + 1;
      } else if (Character.isJavaIdentifierStart(c)) {
        int j = i;
        while (j < n && Character.isJavaIdentifierPart(s.charAt(j))) {
          j++;
        }
        out.add(new Token(Kind.IDENT, s.substring(i, j), line));
        i = j;
      } else if (Character.isDigit(c)) {
        int j = i;
        while (j < n && (Character.isLetterOrDigit(s.charAt(j)) || s.charAt(j) == '_' || s.charAt(j) == '.')) {
          j++;
        }
        out.add(new Token(Kind.LITERAL, s.substring(i, j), line));
        i = j;
      } else {
        out.add(new Token(Kind.PUNCT, String.valueOf(c), line));
        i++;
      }
    }
    return out;
  }

  private static int count(String s, char c) {
    int k = 0;
    for (int i = 0; i < s.length(); i++) {
      if (s.charAt(i) == c) {
        k++;
      }
    }
    return k;
  }
}
