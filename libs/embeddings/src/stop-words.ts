/**
 * Word lists of the hash embedder's static prior (see term-prior.ts). Changing them changes the
 * embedding space: bump HASH_MODEL.
 */

/** Function words with no topical content: dropped (unless a text has nothing else). */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a about above after again against all am an and any are aren as at be because been before being ' +
    'below between both but by can cannot could couldn did didn do does doesn doing don down during ' +
    'each few for from further had hadn has hasn have haven having he her here hers herself him ' +
    'himself his how i if in into is isn it its itself just let me more most mustn my myself no nor ' +
    'not of off on once only or other ought our ours ourselves out over own same shan she should ' +
    'shouldn so some such than that the their theirs them themselves then there these they this ' +
    'those through to too under until up very was wasn we were weren what when where which while ' +
    'who whom why will with won would wouldn you your yours yourself yourselves s t d ll m re ve'
  ).split(' '),
);

/**
 * Content words that are frequent in nearly any corpus, and in agent memories in particular
 * (error, failed, task, agent, user...): kept, at a low weight, as a stand-in for their low IDF.
 */
export const COMMON_WORDS: ReadonlySet<string> = new Set(
  (
    'also always another back call called came case change changed changes check come could day ' +
    'done even ever every fact find first found get gets getting give go goes going good got help ' +
    'keep know last like look made make many may might much must need needed needs never new next ' +
    'now often ok okay one part please point put really run said say see seem set show since ' +
    'something sometimes start still take tell thanks thing things time today try tried turn two ' +
    'use used uses using want way well work worked working works yes yesterday ' +
    'agent agents data error errors fail failed fails failure file files info issue issues memory ' +
    'memories note problem problems result results system task tasks update updated user users value values'
  ).split(' '),
);
