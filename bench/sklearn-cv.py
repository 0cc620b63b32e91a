"""The dense-learning bench's scikit-learn side: a 10-fold stratified cross-validation of the
learner matching ours (same parameters) on a matrix file (class, then the columns), timed.
Prints one JSON line. Exits 2 when scikit-learn is not installed."""
import json
import sys
import time

try:
    import numpy as np
    import sklearn
    from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
    from sklearn.model_selection import StratifiedKFold, cross_val_predict
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC
except ImportError:
    sys.exit(2)

learner, path = sys.argv[1], sys.argv[2]
data = np.loadtxt(path, delimiter=",")
y, x = data[:, 0].astype(int), data[:, 1:]
estimators = {
    "random-forest-classification": lambda: RandomForestClassifier(n_estimators=100, max_features="sqrt", n_jobs=2, random_state=1),
    "gradient-boosting-classification": lambda: HistGradientBoostingClassifier(
        max_iter=100, learning_rate=0.1, max_depth=3, max_leaf_nodes=None, min_samples_leaf=1, early_stopping=False, random_state=1
    ),
    "svc": lambda: make_pipeline(StandardScaler(), SVC(C=10, gamma="auto", probability=True, random_state=1)),
}
if learner not in estimators:
    sys.exit(3)
estimator = estimators[learner]()
started = time.perf_counter()
predicted = cross_val_predict(estimator, x, y, cv=StratifiedKFold(10, shuffle=True, random_state=1), n_jobs=2 if learner == "svc" else None)
ms = 1000 * (time.perf_counter() - started)
name = type(estimator).__name__ if learner != "svc" else "StandardScaler + SVC"
print(json.dumps({"ms": ms, "accuracy": float((predicted == y).mean()), "version": sklearn.__version__, "estimator": name}))
