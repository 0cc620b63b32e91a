import type { Learner, LearningTask, ParamValue, Prediction } from './learner.ts';

/**
 * A consensus of learners (a supermodel with several `model_learning` steps): each member is
 * trained on the same rows; a regression predicts the mean of the members' values (confidence:
 * the mean of theirs), a classification averages the members' class probabilities (soft voting)
 * and predicts the most probable class (confidence: its averaged probability). Members without
 * probabilities vote with their class and its confidence.
 *
 * Its parameters are the members' own, named `{member id}.{name}`. The state names the members,
 * so one consensus learner per task predicts for every stored consensus (in the worker pool too).
 */

interface ConsensusState {
  members: { learner: string; state: unknown }[];
  classes: number;
}

const ID_PREFIX = 'consensus-';

/**
 * The consensus of `members` (all of one task). `byId` resolves member learners when predicting
 * (the learner registry, passed in so that this module does not import it).
 */
export function consensusLearner(task: LearningTask, members: Learner[], byId: (id: string) => Learner | undefined): Learner {
  return {
    id: `${ID_PREFIX}${task}`,
    title: `Consensus of ${members.map((m) => m.title).join(', ') || 'learners'}`,
    description: `The ${task === 'regression' ? 'mean prediction' : 'soft vote (averaged class probabilities)'} of learners trained on the same rows`,
    task,
    types: [],
    parameters: members.flatMap((m) => m.parameters.map((p) => ({ ...p, name: `${m.id}.${p.name}` }))),
    async train(data, params, context) {
      const states: ConsensusState['members'] = [];
      for (const m of members) {
        const own = Object.fromEntries(m.parameters.map((p): [string, ParamValue] => [p.name, params[`${m.id}.${p.name}`] ?? p.default]));
        states.push({ learner: m.id, state: await m.train(data, own, context) });
      }
      return { members: states, classes: data.classes.length } satisfies ConsensusState;
    },
    predict(state, x) {
      const { members, classes } = state as ConsensusState;
      const predictions = members.map((m) => {
        const learner = byId(m.learner);
        if (!learner) throw new Error(`unknown learner ${m.learner} in a consensus`);
        return learner.predict(m.state, x);
      });
      return Array.from({ length: x.rows }, (_, r) =>
        combine(
          task,
          classes,
          predictions.map((p) => p[r]),
        ),
      );
    },
  };
}

function combine(task: LearningTask, classes: number, predictions: Prediction[]): Prediction {
  const usable = predictions.filter((p) => Number.isFinite(p.value) && Number.isFinite(p.confidence));
  if (!usable.length) return { value: Number.NaN, confidence: Number.NaN };
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
  if (task === 'regression') return { value: mean(usable.map((p) => p.value)), confidence: mean(usable.map((p) => p.confidence)) };
  const probabilities = new Array<number>(classes).fill(0);
  for (const p of usable) {
    if (p.probabilities?.length === classes) p.probabilities.forEach((q, c) => (probabilities[c] += q / usable.length));
    else probabilities[p.value] += Math.min(1, Math.max(0, p.confidence)) / usable.length;
  }
  const total = probabilities.reduce((a, b) => a + b, 0) || 1;
  const normalised = probabilities.map((q) => q / total);
  const value = normalised.indexOf(Math.max(...normalised));
  return { value, confidence: normalised[value], probabilities: normalised };
}

/** The consensus learners that predict (and cross-validate) every stored consensus. */
export function consensusPredictors(byId: (id: string) => Learner | undefined): Learner[] {
  return (['regression', 'classification'] as const).map((task) => consensusLearner(task, [], byId));
}
