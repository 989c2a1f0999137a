package io.onceport.workflow;

/**
 * The contract between a front end and the workers it starts executions on: the workflow types,
 * their inputs (what a front end puts in {@code ExecutionInput}, the memo and search attributes of
 * the start request), updates, signals and queries, and the records that come back. Worker
 * Versioning keeps an execution on the build that started it, but a front end of one build still
 * starts executions on whichever worker build is current: the two must agree on this contract.
 *
 * <p>A worker publishes {@link #CURRENT} and {@link #OLDEST_FRONT_END} on its Worker Deployment
 * version (metadata {@value #METADATA_KEY}); a front end reads them from the current version when
 * it starts and refuses to start against workers it cannot work with, saying which side to
 * upgrade.
 *
 * <p>Raise {@link #CURRENT} when a front end starts sending something a worker of the previous
 * value would get wrong; raise {@link #OLDEST_FRONT_END} when workers stop handling what front ends
 * of an older value send. History of the values:
 * <ol>
 *   <li>front ends leave the execution id to the run (inputs without {@code executionId});
 *   <li>front ends choose the execution id and publish it, the search attributes and the memo's
 *       request summary in the start request (commits 654fd0b, bf49355): a worker of protocol 1
 *       would not know the chosen id.
 * </ol>
 */
public final class WireProtocol {
  /** What this build's front end sends and this build's workers understand. */
  public static final int CURRENT = 2;
  /** The oldest front-end protocol whose executions this build's workers run correctly. */
  public static final int OLDEST_FRONT_END = 1;
  /** The Worker Deployment version metadata entry workers publish: {@code {"speaks":N,"accepts_front_ends_from":M}}. */
  public static final String METADATA_KEY = "onceport.wire";

  private WireProtocol() {}
}
