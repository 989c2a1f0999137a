package io.onceport.workflow.execution;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.JsonAutoDetect.Visibility;
import java.util.ArrayList;
import java.util.List;

/**
 * The verification of an execution kept {@code until_verified}, as its run holds it: the state,
 * the schedule, the latest checks and an operator's verdict, from which the record's {@link
 * ExecutionRecord.Verification} is built. Part of {@link Execution}'s serialized state (it travels
 * to a continued run). Changes go through {@link Execution}, which journals them and bumps the
 * version.
 */
@JsonAutoDetect(fieldVisibility = Visibility.ANY, getterVisibility = Visibility.NONE, isGetterVisibility = Visibility.NONE)
final class VerificationLog {
  /** Null until the outcome is known (and for contracts kept by time). */
  private String state;
  private String target;
  private String since;
  private String nextCheckAt;
  private String giveUpAt;
  private String settledAt;
  private int checkCount;
  /** Rounds of checks: one per settle to completed (a re-send after "not applied" starts another). */
  private int rounds;
  private int decisions;
  /** {@link #checkCount} when the current round began: its schedule counts from there. */
  private int roundStartChecks;
  private long verifiedUntilMillis;
  private final List<ExecutionRecord.VerificationCheck> checks = new ArrayList<>();
  private ExecutionRecord.Review decision;

  boolean started() {
    return state != null;
  }

  String state() {
    return state;
  }

  boolean pending() {
    return ExecutionRecord.Verification.PENDING.equals(state);
  }

  boolean givenUp() {
    return ExecutionRecord.Verification.GIVEN_UP.equals(state);
  }

  boolean verified() {
    return ExecutionRecord.Verification.VERIFIED.equals(state);
  }

  /** A new round: pending from {@code now}, checks given up at {@code giveUpAt}. Returns the round's number. */
  int start(String target, String now, String giveUpAt) {
    this.state = ExecutionRecord.Verification.PENDING;
    this.target = target;
    this.since = now;
    this.giveUpAt = giveUpAt;
    this.settledAt = null;
    this.nextCheckAt = null;
    this.roundStartChecks = checkCount;
    return ++rounds;
  }

  int roundStartChecks() {
    return roundStartChecks;
  }

  int round() {
    return rounds;
  }

  void nextCheckAt(String at) {
    nextCheckAt = at;
  }

  /** Adds a check (the record keeps the latest {@link ExecutionRecord.Verification#MAX_CHECKS}); returns its number. */
  int checked(String at, String verdict, Integer status, List<io.onceport.workflow.verify.VerifyAnswer.Held> held, String detail) {
    checks.add(new ExecutionRecord.VerificationCheck(++checkCount, at, verdict, status, held, detail));
    if (checks.size() > ExecutionRecord.Verification.MAX_CHECKS) {
      checks.remove(0);
    }
    return checkCount;
  }

  int checkCount() {
    return checkCount;
  }

  void settle(String state, String at) {
    this.state = state;
    this.settledAt = at;
    this.nextCheckAt = null;
  }

  void verifiedUntil(long millis) {
    verifiedUntilMillis = millis;
  }

  /** Until when identical calls attach after the effect was verified (the verified window), or 0. */
  long verifiedUntilMillis() {
    return verifiedUntilMillis;
  }

  /** An operator's verdict; returns how many there were (the attempt of its journal entry). */
  int decided(ExecutionRecord.Review review) {
    decision = review;
    return ++decisions;
  }

  /** As the record shows it, or null before the outcome is known. */
  ExecutionRecord.Verification view() {
    return state == null ? null : new ExecutionRecord.Verification(state, target, since, nextCheckAt, giveUpAt, settledAt,
        checkCount, checks, decision);
  }
}
