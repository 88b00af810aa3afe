/**
 * A conversational memory set: turns of dialogue between a user and an assistant, each stored as one
 * episodic memory. Facts are stated in passing, in the user's words; questions are asked later in
 * other words and are answered by one or two of the turns (their evidence). Chit-chat turns are
 * distractors that share everyday words with the questions.
 */
export const DIALOGUE: readonly string[] = [
  /* 0 */ 'User: I finally moved to Lisbon last spring, the light there is amazing.',
  /* 1 */ 'Assistant: That sounds lovely! How are you finding the city so far?',
  /* 2 */ 'User: My daughter Maya started violin lessons on Tuesdays after school.',
  /* 3 */ 'User: I am allergic to penicillin, so keep that in mind if I ask about medicine.',
  /* 4 */ 'Assistant: Noted. Is there anything else about your health I should remember?',
  /* 5 */ 'User: Our team deploys the billing service every Thursday at 4pm.',
  /* 6 */ 'User: The staging cluster is called orca-stg and production is orca-prd.',
  /* 7 */ 'User: I drive a blue 2019 Subaru Outback, the insurance renews in March.',
  /* 8 */ 'User: My manager is Priya Natarajan; she prefers written updates over meetings.',
  /* 9 */ 'Assistant: Great, I will keep updates short and written for Priya.',
  /* 10 */ 'User: I am training for the Berlin marathon in September, running four times a week.',
  /* 11 */ 'User: My partner Tomas is vegetarian, so dinner plans need a veggie option.',
  /* 12 */ 'User: The weather today is terrible, it has been raining all morning.',
  /* 13 */ 'User: Our on-call rotation switches every Monday at 9am.',
  /* 14 */ 'User: My laptop is a ThinkPad X1 Carbon, and the docking station keeps disconnecting.',
  /* 15 */ 'User: I booked flights to Tokyo for the 12th of November, flight NH204.',
  /* 16 */ 'Assistant: Exciting! Do you need help planning the Tokyo itinerary?',
  /* 17 */ 'User: We use PostgreSQL 15 for the ledger database and Redis for sessions.',
  /* 18 */ 'User: My favourite coffee is a flat white with oat milk.',
  /* 19 */ 'User: I had a great time at the concert yesterday, the band was fantastic.',
  /* 20 */ 'User: The quarterly budget review with finance is on the last Friday of the quarter.',
  /* 21 */ 'User: Maya also has a recital on December 3rd at the community hall.',
  /* 22 */ 'User: I started learning Portuguese on Duolingo, a 40 day streak now.',
  /* 23 */ 'User: My blood type is O negative, in case that ever matters.',
  /* 24 */ 'Assistant: Thanks, I have saved that.',
  /* 25 */ 'User: Tomas and I are celebrating our anniversary on June 14th.',
  /* 26 */ 'User: The payments API key rotation is owned by the security team, ticket SEC-1182.',
  /* 27 */ 'User: I usually go for a walk after lunch, it clears my head.',
];

export interface Question {
  readonly question: string;
  /** Indexes into DIALOGUE of the turns that answer it. */
  readonly evidence: readonly number[];
}

export const QUESTIONS: readonly Question[] = [
  { question: 'Which city do I live in now?', evidence: [0] },
  { question: 'What day are Maya’s violin lessons, and when is her recital?', evidence: [2, 21] },
  { question: 'Which antibiotic must I avoid?', evidence: [3] },
  { question: 'When do we ship billing to production?', evidence: [5] },
  { question: 'What are the names of the staging and production clusters?', evidence: [6] },
  { question: 'When does my car insurance renew?', evidence: [7] },
  { question: 'How does my manager like to receive updates?', evidence: [8] },
  { question: 'Which marathon am I preparing for?', evidence: [10] },
  { question: 'Any dietary restrictions for dinner with my partner?', evidence: [11] },
  { question: 'When does the on-call rotation change?', evidence: [13] },
  { question: 'What flight number did I book to Japan?', evidence: [15] },
  { question: 'Which database does the ledger run on, and what stores sessions?', evidence: [17] },
  { question: 'How do I take my coffee?', evidence: [18] },
  { question: 'When is the budget review with finance?', evidence: [20] },
  { question: 'What language am I learning?', evidence: [22, 0] },
  { question: 'What is my blood type?', evidence: [23] },
  { question: 'When is our anniversary, mine and Tomas’s?', evidence: [25, 11] },
  { question: 'Who owns the payments API key rotation?', evidence: [26] },
];
