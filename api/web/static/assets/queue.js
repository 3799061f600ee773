// One task at a time: a view's moves, animations and answers are shown in the
// order they happened, never interleaved.

/**
 * Returns enqueue(task): task runs after every task enqueued before it; a
 * failure goes to onError and the queue goes on. While any task is pending,
 * root's data-state is "busy", else "ready" (tests and styles can wait on it).
 */
export function serialQueue(root, onError) {
  let tail = Promise.resolve();
  let pending = 0;
  return (task) => {
    pending++;
    root.dataset.state = 'busy';
    tail = tail
      .then(task)
      .catch(onError)
      .finally(() => {
        if (--pending === 0) root.dataset.state = 'ready';
      });
    return tail;
  };
}
